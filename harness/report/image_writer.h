#pragma once
// --write-images: what the kernels produce, as PNG files a person can look at. Each family says what it draws
// (KernelFamily::pictures, families/picture.h); this writes it.
#include <string>
#include <vector>

#include "vulkan/shader_compiler.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

// Runs the kernel of every family's picture on its problem (width x height) on `device`, checks it, and writes
// the picture into `dir` (created if missing), and a contact sheet of the pictures that have a place on it
// (contact_sheet.png, in the order of contact_sheet.txt): for post-processing tonemap_<operator>.png, coc.png,
// dof_input.png and dof_composite.png. Returns the files written; throws std::runtime_error naming the file or
// kernel that failed.
std::vector<std::string> write_images(Device& device, ShaderCompiler& compiler, const std::string& dir, uint32_t width,
                                      uint32_t height);

}  // namespace shaderwatch
