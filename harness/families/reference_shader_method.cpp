#include "families/reference_shader_method.h"

#include <cmath>
#include <stdexcept>

#include "families/kernel_family.h"
#include "families/kernel_input.h"
#include "run/cpu_device.h"
#include "run/dispatch_runner.h"

namespace shaderwatch {

namespace {

// The reference's output on `device` over `problem` as uploaded for the kernel (`input`, the family's derive_input),
// its first `count` values.
std::vector<double> reference_output(Device& device, ShaderCompiler& compiler, const KernelSpec& kernel,
                                     const Problem& problem, const DerivedInput& input, uint64_t count) {
  const ReferenceShader& ref = *kernel.reference;
  if (ref.fp64 && !device.float64()) throw VulkanError("it has no doubles in shaders (shaderFloat64), which an fp64 reference needs");
  // The kernel's own guard zone after the input: a reference that reads past the end gets NaN too.
  const auto uploaded = upload_kernel_input(device, kernel, problem, input);
  RunContext context(device, compiler, ref.run, problem, *uploaded->buffer, uploaded->derived, 0);
  const auto runner = make_dispatch_runner(context, *ref.run.plan);
  const uint64_t bytes = count * (ref.fp64 ? sizeof(double) : sizeof(float));
  if (runner->output_bytes < bytes)
    throw std::invalid_argument("its output of " + std::to_string(runner->output_bytes) + " bytes holds fewer than the " +
                                std::to_string(count) + " values compared");
  device.submit_and_wait([&](VkCommandBuffer cmd) {
    // All ones: a NaN as a float and as a double (kNaNBits twice is a finite double).
    vkCmdFillBuffer(cmd, runner->output->handle(), 0, VK_WHOLE_SIZE, 0xFFFFFFFFu);
    full_barrier(cmd);
    runner->record(cmd);
  });
  if (ref.fp64) return runner->output->download_as<double>(count);
  const auto floats = runner->output->download_as<float>(count);
  return {floats.begin(), floats.end()};
}

// The expected values: the reference's output on the CPU device, each finite (a reference that leaves an element
// unwritten, as NaN, is the pack's error).
std::vector<double> run_reference(const KernelSpec& kernel, const Problem& problem, const DerivedInput& input, uint64_t count) {
  std::vector<double> expected;
  with_cpu_device([&](Device& device, ShaderCompiler& compiler) {
    try {
      expected = reference_output(device, compiler, kernel, problem, input, count);
    } catch (const std::exception& e) {
      // An error of the check, whatever it was (not an unsupported row: the kernel's device is not at fault).
      throw std::runtime_error(kernel.name + "'s reference shader on " + device.info().name + ": " + e.what());
    }
  });
  for (uint64_t i = 0; i < count; ++i)
    if (!std::isfinite(expected[i]))
      throw std::runtime_error(kernel.name + ": its reference shader left value " + std::to_string(i) + " of " +
                               std::to_string(count) + " " + (std::isnan(expected[i]) ? "NaN (unwritten?)" : "infinite") +
                               ": a reference writes a finite value for every element compared");
  return expected;
}

// "pixel (3, 7) channel 2" where the compared floats are a vec4 per pixel of an image, else "float 123".
std::string element_name(const KernelSpec& spec, const Problem& problem, uint64_t count, uint64_t i) {
  if (kernel_family(spec.family).size == SizeKind::Image && count == problem.items() * 4) {
    const uint64_t pixel = i / 4;
    return "pixel (" + std::to_string(pixel % problem.width) + ", " + std::to_string(pixel / problem.width) +
           ") channel " + std::to_string(i % 4);
  }
  return "float " + std::to_string(i);
}

class ReferenceShaderMethod final : public KernelMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                         DerivedInput input) const override {
    if (!spec.reference) throw std::logic_error(spec.name + " has no reference shader");
    const uint64_t count = spec.reference->compared.count(
        buffer_formula_values({shape.error_context.items, shape.groups()}), output_floats(spec, shape));
    return [&spec, &problem, count, input = std::move(input), expected = std::vector<double>{}](const Readback& got) mutable {
      if (expected.empty()) expected = run_reference(spec, problem, input, count);
      const std::span<const float> values = got.view<float>(count);
      ElementChecker checker;
      for (uint64_t i = 0; i < count; ++i)
        checker.check_lazy(expected[i], values[i], spec.reference->bound(expected[i]),
                           [&] { return element_name(spec, problem, count, i); });
      CheckResult outcome = checker.outcome();
      outcome.result = expected[0];
      return outcome;
    };
  }
};

}  // namespace

const KernelMethod& reference_shader_method() {
  static const ReferenceShaderMethod method;
  return method;
}

}  // namespace shaderwatch
