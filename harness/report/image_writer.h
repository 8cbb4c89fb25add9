#pragma once
// --write-images: what the post-processing kernels produce, as PNG files a person can look at.
#include <string>
#include <vector>

#include "vulkan/shader_compiler.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

// Runs every tone-mapping kernel, the CoC and the DoF tile kernels on the HDR test image (width x
// height) on `device`, and writes into `dir` (created if missing): tonemap_<operator>.png, coc.png,
// dof_tiles.png and contact_sheet.png (every operator side by side, in the order of contact_sheet.txt).
// Returns the files written; throws std::runtime_error naming the file or kernel that failed.
std::vector<std::string> write_images(Device& device, ShaderCompiler& compiler, const std::string& dir, uint32_t width,
                                      uint32_t height);

}  // namespace shaderwatch
