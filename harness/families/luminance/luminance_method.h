#pragma once
// The luminance family's methods. Each is one dispatch over the image that writes a sum (or stats) per tile
// or workgroup, so a method is its layout (its workgroups, which pixels each one sums, the floats it writes)
// and its check of those floats; LuminanceMethod records the dispatch and makes the check from them. The
// methods: luminance_sums.cpp (tiles, grid-stride), luminance_single_pass.cpp, luminance_stats.cpp.
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
  std::unique_ptr<FamilyRunner> make_runner(RunContext& context) const final;  // luminance_runner.cpp
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                         DerivedInput input) const final;
  // The reference of each output element over exactly the pixels the kernel assigns to it.
  std::vector<reference::LuminanceGroup> expected(const KernelSpec& spec, const Problem& problem,
                                                  const RunShape& shape) const;

  // Its workgroups {x, y}: one per tile of the image (the catalog's tile_x x tile_y), unless overridden.
  virtual std::pair<uint32_t, uint32_t> groups(const KernelSpec& spec, const DeviceInfo& device,
                                               const Problem& problem) const;
  // Which output element each pixel belongs to, as the shader assigns it: its tile's, unless overridden.
  virtual reference::PixelToGroup assign(const KernelSpec& spec, const Problem& problem, const RunShape& shape) const;
  // An element as a failure names it: "element 5 (tile 1,2)".
  virtual std::string element_name(uint64_t i, const RunShape& shape) const;
  // The floats it writes over `groups` workgroups: the runner's output buffer, the check's readback.
  virtual uint64_t output_floats(const KernelSpec& spec, uint64_t groups) const = 0;
  virtual bool has_counter() const { return false; }  // an atomic counter (which workgroup finishes last)
  // Its output_floats() against `expected` (one element per workgroup).
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
