// The sizes that take a grid-stride kernel through every way out of its unrolled loop on this device: with
// `stride` = the grid's invocations, invocation s visits q or q + 1 items, q = items / stride, UNROLL at a time,
// then q mod UNROLL one at a time. Fixed sizes miss some (a `<=` in the unrolled guard reads past the end only where
// (items - (UNROLL-1) stride) mod (UNROLL stride) < stride), so (UNROLL + c + 1/2) strides for c = 0 .. UNROLL-1:
// every class twice, both the q and q + 1 sides. Used by the luminance and boids grid-stride kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "catalog.h"
#include "vulkan/pipelines.h"

namespace shaderwatch {

struct GridStrideCheck {
  uint64_t stride = 0;  // the grid's invocations
  uint64_t items = 0;   // (UNROLL + c + 1/2) strides
  std::string why;      // for --check's table
};

std::vector<GridStrideCheck> grid_stride_checks(const KernelSpec& spec, const DeviceInfo& device, const std::string& unit);

}  // namespace shaderwatch
