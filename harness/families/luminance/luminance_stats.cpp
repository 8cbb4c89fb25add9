// The statistics luminance method (lum_stats.comp): one read, four results per tile, vec4(sum L,
// sum ln(delta + L), min L, max L).
#include "families/luminance/luminance_method.h"

#include "check/sum_bounds.h"
#include "summation.h"

namespace shaderwatch {

namespace {

class LumStats final : public LuminanceMethod {
 public:
  CheckResult check(const KernelSpec& spec, const RunShape& shape, const std::vector<reference::LuminanceGroup>& expected,
                    const std::vector<float>& got) const override {
    const double h = spec.roundings(shape.error_context);
    ElementChecker checker;
    reference::NeumaierSum gpu_total;
    for (uint64_t i = 0; i < expected.size(); ++i) {
      const auto& e = expected[i];
      const float* v = &got[i * 4];
      const std::string name = element_name(i, shape);
      checker.check(name + " sum", e.sum, v[0], sum_bound(h, e.abs_sum), probable_sum_bound(h, e.abs_sum));
      checker.check(name + " log-sum", e.log_sum, v[1], log_sum_bound(e, h));
      // min/max select a value exactly, but the value is a float dot product: within gamma_3 of its magnitude.
      const double minmax_bound = 2.0 * reference::error_gamma(3) * e.max_magnitude;
      checker.check(name + " min", e.min, v[2], minmax_bound);
      checker.check(name + " max", e.max, v[3], minmax_bound);
      gpu_total.add(v[0]);
    }
    return with_average(spec, shape, expected, gpu_total.value(), checker);
  }
};

}  // namespace

const LuminanceMethod& lum_stats_method() {
  static const LumStats method;
  return method;
}

}  // namespace shaderwatch
