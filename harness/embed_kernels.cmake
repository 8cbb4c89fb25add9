# Writes a C++ file holding every kernels/ source as a string, so the binary carries its shaders.
# Usage: cmake -DOUT=file.cpp -DSOURCES="a|b|c" -P embed_kernels.cmake
set(body "#include \"vulkan/embedded_kernels.h\"\nnamespace shaderwatch {\nconst std::vector<EmbeddedKernel>& embedded_kernels() {\n  static const std::vector<EmbeddedKernel> kernels = {\n")
string(REPLACE "|" ";" SOURCES "${SOURCES}")
foreach(src IN LISTS SOURCES)
  get_filename_component(name "${src}" NAME)
  file(READ "${src}" text)
  string(APPEND body "    {\"${name}\", R\"sw_glsl(${text})sw_glsl\"},\n")
endforeach()
string(APPEND body "  };\n  return kernels;\n}\n}  // namespace shaderwatch\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
