// The single-pass luminance method (lum_single_pass.comp): tile sums, then the last workgroup to finish (an
// atomic counter) adds them in the same dispatch; with LOG_AVERAGE, sums of ln(delta + L), the log-average
// luminance and the exposure.
#include "families/luminance/luminance_method.h"

#include "check/sum_bounds.h"
#include "tracked.h"

namespace shaderwatch {

namespace {

class LumSinglePass final : public LuminanceMethod {
 public:
  // The tile floats, then the total (and Lavg and the exposure): its plan's output.
  CheckResult check(const KernelSpec& spec, const RunShape& shape, const std::vector<reference::LuminanceGroup>& expected,
                    const std::vector<float>& got) const override {
    return spec.log_average ? check_log_average(spec, shape, expected, got) : check_total(spec, shape, expected, got);
  }

 private:
  CheckResult check_total(const KernelSpec& spec, const RunShape& shape,
                          const std::vector<reference::LuminanceGroup>& expected, const std::vector<float>& got) const {
    ElementChecker checker;
    const double gpu_total = check_sums(spec, shape, expected, got, checker);
    const uint64_t g = expected.size();
    const auto total = reference::merge(expected);
    const double total_h = spec.total_roundings(shape.error_context);
    checker.check("total (element " + std::to_string(g) + ")", total.sum, got[g], sum_bound(total_h, total.abs_sum),
                  probable_sum_bound(total_h, total.abs_sum));
    return with_average(spec, shape, expected, gpu_total, checker);
  }

  // Per tile and in total: ln(delta + L) bounded as for the stats kernel; then Lavg = exp(total / N) and
  // the exposure 0.18 / Lavg, their bounds carried through exp and the division (reference/tracked.h).
  CheckResult check_log_average(const KernelSpec& spec, const RunShape& shape,
                                const std::vector<reference::LuminanceGroup>& expected, const std::vector<float>& got) const {
    const double h = spec.roundings(shape.error_context);
    const uint64_t g = expected.size();
    ElementChecker checker;
    for (uint64_t i = 0; i < g; ++i) {
      checker.check(element_name(i, shape) + " log-sum", expected[i].log_sum, got[i], log_sum_bound(expected[i], h));
    }
    const auto total = reference::merge(expected);
    const double total_bound = log_sum_bound(total, spec.total_roundings(shape.error_context));
    checker.check("log-sum total (element " + std::to_string(g) + ")", total.log_sum, got[g], total_bound);
    using reference::Tracked;
    // The shader divides its float total by float(N) (exact below 2^24 pixels, else one more rounding).
    const Tracked mean = Tracked::exact(total.log_sum, total_bound / 2) / Tracked(static_cast<double>(total.pixels));
    const Tracked lavg = exp(mean);
    const Tracked exposure = Tracked(0.18) / lavg;
    checker.check("log-average luminance", lavg.value, got[g + 1], 2 * lavg.error);
    checker.check("exposure 0.18 / Lavg", exposure.value, got[g + 2], 2 * exposure.error);
    CheckResult o = checker.outcome();
    o.result = got[g + 1];
    return o;
  }
};

}  // namespace

const LuminanceMethod& lum_single_pass_method() {
  static const LumSinglePass method;
  return method;
}

}  // namespace shaderwatch
