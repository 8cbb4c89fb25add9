// Luminance methods that write one float sum per workgroup, which the harness adds up: over tiles of the
// image (lum_tree.comp, lum_subgroup.comp), or over a grid-stride loop on a device-sized grid (lum_grid_stride.comp).
#include "families/luminance/luminance_method.h"

#include <string>

#include "vulkan/pipelines.h"

namespace shaderwatch {

namespace {

class LumTiles : public LuminanceMethod {
 public:
  CheckResult check(const KernelSpec& spec, const RunShape& shape, const std::vector<reference::LuminanceGroup>& expected,
                    const std::vector<float>& got) const override {
    ElementChecker checker;
    const double gpu_total = check_sums(spec, shape, expected, got, checker);
    return with_average(spec, shape, expected, gpu_total, checker);
  }
};

// As many workgroups as the device runs at once (its plan's DeviceGrid), each striding over the image's pixels in
// row order.
class LumGridStride final : public LumTiles {
 public:
  reference::PixelToGroup assign(const KernelSpec& spec, const Problem& problem, const RunShape& shape) const override {
    const uint64_t width = problem.width, group = spec.group_x, g = shape.groups();
    return [=](uint32_t x, uint32_t y) { return static_cast<uint32_t>(((uint64_t{y} * width + x) / group) % g); };
  }
  std::string element_name(uint64_t i, const RunShape&) const override { return "element " + std::to_string(i); }

  // Invocation s (of `stride` = groups x GROUP) visits q or q + 1 pixels, q = pixels / stride: UNROLL at a time,
  // then the q mod UNROLL left over one at a time. Which classes a size takes depends on the device's stride, so
  // fixed sizes missed some (a `<=` in the unrolled guard reads past the image only where (pixels - (UNROLL-1)
  // stride) mod (UNROLL stride) < stride: none of the fixed sizes on lavapipe). Here q = UNROLL + c for
  // c = 0 .. UNROLL-1, with half a stride more: every class twice, and both the q and q + 1 sides.
  std::vector<std::pair<SizeSpec, std::string>> dispatch_check_sizes(const KernelSpec& spec,
                                                                     const DeviceInfo& device) const override {
    const uint32_t unroll = static_cast<uint32_t>(std::stoul(define_value(spec, "UNROLL")));
    const uint64_t stride = uint64_t{grid_stride_groups(device, ~uint64_t{0} / 2, spec.group_x)} * spec.group_x;
    std::vector<std::pair<SizeSpec, std::string>> sizes;
    for (uint32_t c = 0; c < unroll; ++c) {
      // (unroll + c + 1/2) strides as rows of stride / 8 pixels (at most 65536 wide), 4 (2 (unroll + c) + 1) of them.
      const SizeSpec size{static_cast<uint32_t>(stride / 8), 4 * (2 * (unroll + c) + 1), 0};
      sizes.push_back({size, "stride " + std::to_string(stride) + " pixels: invocations visit " + std::to_string(unroll + c) +
                                 " or " + std::to_string(unroll + c + 1) + " pixels, " + std::to_string(unroll) + " a round"});
    }
    return sizes;
  }
};

}  // namespace

const LuminanceMethod& lum_tiles_method() {
  static const LumTiles method;
  return method;
}

const LuminanceMethod& lum_grid_stride_method() {
  static const LumGridStride method;
  return method;
}

}  // namespace shaderwatch
