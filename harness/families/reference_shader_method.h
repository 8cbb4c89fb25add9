#pragma once
// The check of a kernel pack's kernel that has a reference shader (Method::PackReference, catalog.h's
// ReferenceShader): at its first check the reference runs on the CPU device (run/cpu_device.h) over the input the
// kernel read, through the same executor; then each compared float of the kernel's output is checked against it
// within the manifest's tolerance, reported as err/bound like every other check. Not a family's method: a pack
// kernel of any family's inputs has it.
#include "families/kernel_method.h"

namespace shaderwatch {

const KernelMethod& reference_shader_method();

}  // namespace shaderwatch
