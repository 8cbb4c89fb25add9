// Luminance methods that write one float sum per workgroup, which the harness adds up: over tiles of the
// image (lum_tree.comp, lum_subgroup.comp), or over a grid-stride loop on a device-sized grid (lum_grid_stride.comp).
#include "families/luminance/luminance_method.h"

#include "vulkan/pipelines.h"

namespace shaderwatch {

namespace {

class LumTiles : public LuminanceMethod {
 public:
  uint64_t output_floats(const KernelSpec&, uint64_t groups) const override { return groups; }
  CheckResult check(const KernelSpec& spec, const RunShape& shape, const std::vector<reference::LuminanceGroup>& expected,
                    const std::vector<float>& got) const override {
    ElementChecker checker;
    const double gpu_total = check_sums(spec, shape, expected, got, checker);
    return with_average(spec, shape, expected, gpu_total, checker);
  }
};

// As many workgroups as the device runs at once, each striding over the image's pixels in row order.
class LumGridStride final : public LumTiles {
 public:
  std::pair<uint32_t, uint32_t> groups(const KernelSpec& spec, const DeviceInfo& device,
                                       const Problem& problem) const override {
    return {grid_stride_groups(device, problem.items(), spec.group_x), 1};
  }
  reference::PixelToGroup assign(const KernelSpec& spec, const Problem& problem, const RunShape& shape) const override {
    const uint64_t width = problem.width, group = spec.group_x, g = shape.groups();
    return [=](uint32_t x, uint32_t y) { return static_cast<uint32_t>(((uint64_t{y} * width + x) / group) % g); };
  }
  std::string element_name(uint64_t i, const RunShape&) const override { return "element " + std::to_string(i); }
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
