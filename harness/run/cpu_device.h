#pragma once
// The CPU Vulkan device (lavapipe, Debian's mesa-vulkan-drivers) that kernel packs' reference shaders run on, beside
// whatever device is under test: opened at its first use, once per process, in a Vulkan instance of its own, with
// doubles enabled where it has them (a reference may compute in fp64). A reference run is short next to the
// kernels' checks, so callers take turns.
#include <functional>

#include "vulkan/shader_compiler.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

// Calls `use` with the CPU device and a compiler of its own (no --check --race delays: a reference is not under
// test), one caller at a time. Throws VulkanError naming what to install where the loader lists no CPU device.
void with_cpu_device(const std::function<void(Device&, ShaderCompiler&)>& use);

}  // namespace shaderwatch
