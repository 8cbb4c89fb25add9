#pragma once
// One lavapipe device (with validation) and a shader compiler for a test binary's tests, made at first use; and
// a kernel set up for sampling with options short enough for tests on it.
#include <memory>

#include "catalog.h"
#include "run/gpu_timer.h"
#include "inputs/inputs.h"
#include "suite/kernel_run.h"
#include "vulkan/shader_compiler.h"
#include "vulkan/vulkan_context.h"
#include "families/luminance/luminance_family.h"

namespace shaderwatch {

struct LavapipeDevice {
  std::unique_ptr<Instance> instance = std::make_unique<Instance>(/*validation=*/true);
  std::unique_ptr<Device> device = std::make_unique<Device>(*instance, instance->select(""));
  ShaderCompiler compiler;
};

inline LavapipeDevice& lavapipe() {
  static LavapipeDevice v;
  return v;
}

// Sampling that stops within max_wall_seconds on lavapipe: 10 samples at least, the low-noise rule after 1 ms.
inline SamplingOptions short_sampling(double max_wall_seconds) {
  SamplingOptions options;
  options.stop.min_samples = 10;
  options.stop.min_gpu_seconds = 0.001;
  options.stop.max_wall_seconds = max_wall_seconds;
  return options;
}

// lum/sequential_256 on a random width x height image, with a timer (1 MiB cold flush) to sample it.
struct SampledKernel {
  SampledKernel(uint32_t width, uint32_t height)
      : problem(make_luminance_problem(InputKind::Random, width, height, 5)),
        run(*lavapipe().device, lavapipe().compiler, find_kernel("lum/sequential_256"), problem),
        timer(*lavapipe().device, lavapipe().compiler, uint64_t{1} << 20) {}
  Measurement sample(const SamplingOptions& options, bool cold, bool warm = false) {
    return timer.sample([&](VkCommandBuffer cmd) { run.record_poison(cmd); },
                        [&](VkCommandBuffer cmd) { run.record(cmd); }, cold, options, warm);
  }
  const Problem problem;
  KernelRun run;
  GpuTimer timer;
};

}  // namespace shaderwatch
