#pragma once
// A problem's data as kernels read it on one device: the family's derived input (post-processing: the image in
// the kernel's pixel space), uploaded with a NaN guard zone after it. Made once and shared by every kernel that
// reads the same (same device, problem and KernelFamily::input_variant): at 8K, deriving and uploading 530 MB
// per kernel was 21 s of the default suite's 118 s on an H200. Kernels declare it readonly; one that wrote into it
// anyway would fail the checks of the kernels after it (they compare with the host's copy), never make them pass.
#include <memory>

#include "check/answer_check.h"
#include "catalog.h"
#include "inputs/inputs.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

struct KernelInput {
  std::unique_ptr<Buffer> buffer;  // the input, then its guard zone
  DerivedInput derived;             // the family's derive_input; empty for a family without one
};

// The family's derive_input of the problem for this kernel (empty where the family has none): host work only, on
// any thread, so the suite makes them ahead of need.
DerivedInput derive_kernel_input(const KernelSpec& spec, const Problem& problem);
// `derived` (derive_kernel_input's) uploaded. Throws UnsupportedError when the input and its guard zone exceed
// the device's maxStorageBufferRange.
std::shared_ptr<const KernelInput> upload_kernel_input(Device& device, const KernelSpec& spec, const Problem& problem,
                                                       DerivedInput derived);
inline std::shared_ptr<const KernelInput> make_kernel_input(Device& device, const KernelSpec& spec, const Problem& problem) {
  return upload_kernel_input(device, spec, problem, derive_kernel_input(spec, problem));
}

// Kernels of one problem with the same variant read the same KernelInput: the family's input_variant and guard.
int kernel_input_variant(const KernelSpec& spec);
// What fills the guard zone after the kernel's input: its family's input_guard.
GuardFill input_guard(const KernelSpec& spec);
// The guard values of GuardFill::Extremes, `floats` of them: in each vec4 the signs alternate, and from one vec4 to
// the next they flip, so one value read past the end moves a min or a max whichever it takes part in; magnitudes
// 2^96..2^111 in turn, so a few of them never cancel in a sum.
std::vector<float> extreme_guard_values(uint64_t floats);

}  // namespace shaderwatch
