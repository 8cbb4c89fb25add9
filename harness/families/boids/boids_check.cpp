// The boids methods' checks: the sums of the positions against their bounds, or the exact min and max.
#include <string>

#include "families/boids/boids_method.h"

#include "boids.h"
#include "check/sum_bounds.h"

namespace shaderwatch {

namespace {

const char* const kAxis[3] = {"x", "y", "z"};

}  // namespace

MethodCheck boids_sums_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, double scale,
                             bool counts_points) {
  return [&spec, &problem, shape, scale, counts_points](const Readback& output) {
    const auto ref = reference::boids_stats(problem.data, problem.count);
    const auto got = output.as<float>(4);
    const double h = spec.roundings(shape.error_context);
    ElementChecker checker;
    for (int c = 0; c < 3; ++c) {
      // Float additions alone (scale 1: not the mip chain's filtering) of whole numbers exact in float: no error at
      // all, so one position lost or added shows at any count (issue 32: one of 65,537 random ones hides within
      // the probabilistic bound).
      if (scale == 1.0 && ref.exact_in_float[c]) {
        checker.check(std::string("sum ") + kAxis[c] + " (exact: whole numbers)", ref.sum[c], got[c], 0);
        continue;
      }
      checker.check(std::string("sum ") + kAxis[c], ref.sum[c], got[c] * scale, sum_bound(h, ref.abs_sum[c]),
                    probable_sum_bound(h, ref.abs_sum[c]));
    }
    // Exact for N < 2^24 (w = 1 each).
    if (counts_points) checker.check("points counted (w)", static_cast<double>(problem.count), got[3] * scale, 0);
    CheckResult o = checker.outcome();
    o.result = got[0] * scale / static_cast<double>(problem.count);
    return o;
  };
}

CheckResult check_boids_min_max(const Problem& problem, const std::array<float, 3>& min, const std::array<float, 3>& max) {
  const auto ref = reference::boids_stats(problem.data, problem.count);
  ElementChecker checker;
  for (int c = 0; c < 3; ++c) {
    checker.check(std::string("min ") + kAxis[c], ref.min[c], min[c], 0);
    checker.check(std::string("max ") + kAxis[c], ref.max[c], max[c], 0);
  }
  CheckResult o = checker.outcome();
  o.result = min[0];
  return o;
}

MethodCheck boids_min_max_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape) {
  return [&problem, floats = output_floats(spec, shape)](const Readback& output) {
    const auto got = output.as<float>(floats);  // min, then max
    return check_boids_min_max(problem, {got[0], got[1], got[2]}, {got[4], got[5], got[6]});
  };
}

}  // namespace shaderwatch
