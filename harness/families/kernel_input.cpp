#include "families/kernel_input.h"

#include <cmath>

#include "families/kernel_family.h"
#include "run/family_runner.h"
#include "check/readback.h"

namespace shaderwatch {

DerivedInput derive_kernel_input(const KernelSpec& spec, const Problem& problem) {
  const KernelFamily& family = kernel_family(spec.family);
  return family.derive_input ? family.derive_input(spec, problem) : DerivedInput{};
}

std::shared_ptr<const KernelInput> upload_kernel_input(Device& device, const KernelSpec& spec, const Problem& problem,
                                                       DerivedInput derived) {
  const KernelFamily& family = kernel_family(spec.family);
  // A guard zone after the input (input_guard: NaN or extreme values): a kernel that reads past the end gets a
  // wrong answer.
  const uint64_t guard_bytes = input_guard_bytes(family.size, problem.width);
  const uint64_t input_bytes = problem.items() * kVec4;
  if (input_bytes + guard_bytes > device.info().max_storage_buffer_range) {
    throw UnsupportedError("input of " + std::to_string(input_bytes) + " bytes (+ guard) exceeds maxStorageBufferRange " +
                           std::to_string(device.info().max_storage_buffer_range));
  }
  auto input = std::make_shared<KernelInput>();
  input->derived = std::move(derived);
  input->buffer = std::make_unique<Buffer>(device, input_bytes + guard_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  input->buffer->upload(input->derived.data ? input->derived.data->data() : problem.data.data(), input_bytes);
  if (input_guard(spec) == GuardFill::Extremes) {
    const std::vector<float> guard = extreme_guard_values(guard_bytes / sizeof(float));
    input->buffer->upload(guard.data(), guard_bytes, input_bytes);
  } else {
    device.submit_and_wait(
        [&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, input->buffer->handle(), input_bytes, guard_bytes, kNaNBits); });
  }
  return input;
}

int kernel_input_variant(const KernelSpec& spec) {
  const KernelFamily& family = kernel_family(spec.family);
  const int variant = family.input_variant ? family.input_variant(spec) : 0;
  return 2 * variant + (input_guard(spec) == GuardFill::Extremes ? 1 : 0);
}

GuardFill input_guard(const KernelSpec& spec) {
  const KernelFamily& family = kernel_family(spec.family);
  return family.input_guard ? family.input_guard(spec) : GuardFill::NaN;
}

std::vector<float> extreme_guard_values(uint64_t floats) {
  std::vector<float> values(floats);
  for (uint64_t i = 0; i < floats; ++i) {
    const bool negative = ((i & 1) != 0) != (((i / 4) & 1) != 0);
    values[i] = std::ldexp(negative ? -1.0f : 1.0f, 96 + static_cast<int>(i % 16));
  }
  return values;
}

}  // namespace shaderwatch
