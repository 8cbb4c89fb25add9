// The boids methods of a device-sized grid (boids_grid.comp, its plan in kernels/method_plans.cpp): a partial per
// workgroup, then one workgroup over them; the sums or the min and max, checked as the one-group kernels are, and
// also at the counts that take the grid-stride loop through every way out of its unrolled rounds.
#include "families/boids/boids_method.h"
#include "families/grid_stride_checks.h"

namespace shaderwatch {

namespace {

class GridMethod : public KernelMethod {
 public:
  std::vector<std::pair<SizeSpec, std::string>> dispatch_check_sizes(const KernelSpec& spec,
                                                                     const DeviceInfo& device) const override {
    std::vector<std::pair<SizeSpec, std::string>> sizes;
    for (const auto& c : grid_stride_checks(spec, device, "positions")) sizes.push_back({SizeSpec{0, 0, c.items}, c.why});
    return sizes;
  }
};

class GridSums final : public GridMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    return boids_sums_check(spec, problem, shape);
  }
};

class GridMinMax final : public GridMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    return boids_min_max_check(spec, problem, shape);
  }
};

}  // namespace

const KernelMethod& boids_grid_sums_method() {
  static const GridSums method;
  return method;
}

const KernelMethod& boids_grid_min_max_method() {
  static const GridMinMax method;
  return method;
}

}  // namespace shaderwatch
