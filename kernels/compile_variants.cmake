# Compiles every catalog shader variant with glslangValidator so a shader that does not compile fails the
# build. Inputs: LISTER (shaderwatch-list-variants), VALIDATOR, KERNELS (source dir), STAMP (written on success).
execute_process(COMMAND ${LISTER} OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "shaderwatch-list-variants failed (${rc})")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(count 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  separate_arguments(args UNIX_COMMAND "${line}")
  list(POP_FRONT args file)
  execute_process(
    COMMAND ${VALIDATOR} --target-env vulkan1.3 -I${KERNELS} ${args} -o /dev/null ${KERNELS}/${file}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "shader variant does not compile: ${line}\n${out}${err}")
  endif()
  math(EXPR count "${count} + 1")
endforeach()
message(STATUS "${count} shader variants compile")
file(WRITE ${STAMP} "${count}\n")
