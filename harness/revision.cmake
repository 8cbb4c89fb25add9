# Writes revision.cpp with the source tree's git revision (with -dirty for local changes), rewritten only
# when it changes, so every benchmark result names the harness that produced it.
execute_process(COMMAND git -C ${SOURCE_DIR} describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR revision STREQUAL "")
  set(revision "unknown")
endif()
file(WRITE ${OUT}.tmp "namespace shaderwatch { extern const char* const kHarnessRevision; const char* const kHarnessRevision = \"${revision}\"; }\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
