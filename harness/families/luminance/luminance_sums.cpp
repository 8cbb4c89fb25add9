// Luminance methods that write one float sum per workgroup, which the harness adds up: over tiles of the
// image (lum_tree.comp, lum_subgroup.comp), or over a grid-stride loop on a device-sized grid (lum_grid_stride.comp).
#include "families/luminance/luminance_method.h"

#include <string>

#include "families/grid_stride_checks.h"
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

  // Every way out of the unrolled loop (grid_stride_checks.h): (UNROLL + c + 1/2) strides as rows of stride / 8
  // pixels (at most 65536 wide).
  std::vector<std::pair<SizeSpec, std::string>> dispatch_check_sizes(const KernelSpec& spec,
                                                                     const DeviceInfo& device) const override {
    std::vector<std::pair<SizeSpec, std::string>> sizes;
    for (const auto& c : grid_stride_checks(spec, device, "pixels"))
      sizes.push_back({SizeSpec{static_cast<uint32_t>(c.stride / 8), static_cast<uint32_t>(c.items / (c.stride / 8)), 0}, c.why});
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
