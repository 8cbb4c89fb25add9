// The roofline's bandwidth probes (kernels/copy.comp, kernels/read_probe.comp), each rate the faster of
// the two access patterns catalog.h names: the roofline is what the memory gives the best-placed access.
#pragma once

#include <functional>

#include "run/gpu_timer.h"
#include "vulkan/pipelines.h"
#include "run/roofline.h"

namespace shaderwatch {

// copy.comp: copies `src` to `dst`, or only writes `dst` (write_only), both of `src`'s size.
class CopyProbe {
 public:
  CopyProbe(Device& device, ShaderCompiler& compiler, const Buffer& src, const Buffer& dst, bool write_only, bool tiled);
  void record(VkCommandBuffer cmd) const { pipeline_.dispatch(cmd, push_, groups_x_, groups_y_); }

 private:
  ComputePipeline pipeline_;
  PushConstants push_;
  uint32_t groups_x_ = 1, groups_y_ = 1;
};

// The seconds one recorded dispatch takes (the benchmark: the median of cold samples).
using DispatchSeconds = std::function<double(const std::function<void(VkCommandBuffer)>& record)>;

// Every probe over two buffers of `bytes` (rounded down to whole vec4).
Bandwidths measure_bandwidths(Device& device, ShaderCompiler& compiler, uint64_t bytes, const DispatchSeconds& seconds);

}  // namespace shaderwatch
