#pragma once
// One lavapipe device (with validation) and a shader compiler for a test binary's tests, made at first use; and
// sampling options short enough for tests on it.
#include <memory>

#include "run/gpu_timer.h"
#include "vulkan/shader_compiler.h"
#include "vulkan/vulkan_context.h"

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

}  // namespace shaderwatch
