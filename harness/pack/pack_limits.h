#pragma once
// Whether a pack kernel can run at a size a run will use, said before any GPU work (exit 4): its formulas give counts,
// its buffers hold what its check reads, its tiles are its workgroups, and given the devices, their limits hold for
// it and for its reference shader on the CPU device.
#include <string>

#include "catalog.h"
#include "inputs/inputs.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

// Where a pack kernel cannot run at `size`: a formula that gives no count (a workgroup formula that does not divide,
// a buffer of no bytes), or, given the device, more workgroups, invocations or buffer bytes than its limits allow;
// for a kernel with a reference shader, given the device, the same of its reference on `cpu`, the CPU device it
// runs on (nullptr: the loader lists none, which is the problem). The message names the kernel, the size and what
// is wrong; "" where it can, and for a built-in kernel.
std::string pack_size_problem(const KernelSpec& spec, SizeKind kind, const SizeSpec& size, const DeviceInfo* device = nullptr,
                              const DeviceInfo* cpu = nullptr);

}  // namespace shaderwatch
