#pragma once
#include <string_view>
#include <vector>

namespace shaderwatch {
struct EmbeddedKernel {
  std::string_view name;    // file name in kernels/: a shader source, or expectations.json
  std::string_view source;  // its text
};
// Generated at build time from kernels/ (embed_kernels.cmake).
const std::vector<EmbeddedKernel>& embedded_kernels();
}  // namespace shaderwatch
