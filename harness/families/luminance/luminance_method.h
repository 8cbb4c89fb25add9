#pragma once
// The luminance family's methods. Each is one dispatch over the image that writes a sum (or stats) per tile
// or workgroup: its plan (kernels/method_plans.cpp) says the workgroups and the floats it writes, the method which
// pixels each workgroup sums and its check of those floats. The methods: luminance_sums.cpp (tiles,
// grid-stride), luminance_single_pass.cpp, luminance_stats.cpp.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "families/kernel_method.h"
#include "check/check.h"
#include "luminance.h"

namespace shaderwatch {

class LuminanceMethod : public KernelMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                         DerivedInput input) const final;
  // The reference of each output element over exactly the pixels the kernel assigns to it.
  std::vector<reference::LuminanceGroup> expected(const KernelSpec& spec, const Problem& problem,
                                                  const RunShape& shape) const;

  // Which output element each pixel belongs to, as the shader assigns it: its tile's, unless overridden.
  virtual reference::PixelToGroup assign(const KernelSpec& spec, const Problem& problem, const RunShape& shape) const;
  // An element as a failure names it: "element 5 (tile 1,2)".
  virtual std::string element_name(uint64_t i, const RunShape& shape) const;
  // Its output (output_floats() of its plan) against `expected` (one element per workgroup).
  virtual CheckResult check(const KernelSpec& spec, const RunShape& shape,
                            const std::vector<reference::LuminanceGroup>& expected, const std::vector<float>& got) const = 0;

 protected:
  // Each element's sum, got[i] (its bounds from spec.roundings); returns their total as the harness adds them.
  double check_sums(const KernelSpec& spec, const RunShape& shape, const std::vector<reference::LuminanceGroup>& expected,
                    const std::vector<float>& got, ElementChecker& checker) const;
  // The image's average from the elements' sums (`gpu_total`, added by the harness), then the outcome with
  // that average as the result.
  static CheckResult with_average(const KernelSpec& spec, const RunShape& shape,
                                  const std::vector<reference::LuminanceGroup>& expected, double gpu_total,
                                  ElementChecker& checker);
};

// Bound of a float sum of ln(delta + L) over one element's pixels (the stats and log-average kernels').
double log_sum_bound(const reference::LuminanceGroup& e, double roundings);

// The family's methods (its table is luminance_method(), luminance_family.cpp).
const LuminanceMethod& lum_tiles_method();
const LuminanceMethod& lum_grid_stride_method();
const LuminanceMethod& lum_single_pass_method();
const LuminanceMethod& lum_stats_method();

}  // namespace shaderwatch
