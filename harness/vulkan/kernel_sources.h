#pragma once
// Which files of kernels/ a catalog kernel is built from: its shaders and everything they #include, read
// from the sources embedded in the binary. The pre-commit check picks the kernels a change touches by it.
#include <string>
#include <vector>

#include "catalog.h"

namespace shaderwatch {

// File names in kernels/ (a pack's as "<pack>/<file>", its reference shader's too), sorted, each once. Throws std::runtime_error naming a file
// that is not embedded.
std::vector<std::string> kernel_source_files(const KernelSpec& spec);

}  // namespace shaderwatch
