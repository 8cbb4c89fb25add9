// What every luminance method shares: its check made from its layout (the reference per element computed at
// the first check, then kept), the tiled layout, and the checking steps the methods compose.
#include "families/luminance/luminance_method.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "check/sum_bounds.h"
#include "summation.h"

namespace shaderwatch {

MethodCheck LuminanceMethod::make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                                        DerivedInput) const {
  return [this, &spec, &problem, shape, elements = std::vector<reference::LuminanceGroup>{}](const Readback& got) mutable {
    if (elements.empty()) elements = expected(spec, problem, shape);
    const uint64_t g = shape.groups();
    if (elements.size() != g) throw std::logic_error(spec.name + ": " + std::to_string(elements.size()) +
                                                      " reference elements for " + std::to_string(g) + " workgroups");
    return check(spec, shape, elements, got.as<float>(output_floats(spec, shape)));
  };
}

std::vector<reference::LuminanceGroup> LuminanceMethod::expected(const KernelSpec& spec, const Problem& problem,
                                                                 const RunShape& shape) const {
  return reference::reduce_luminance(problem.data, problem.width, problem.height, static_cast<uint32_t>(shape.groups()),
                                     assign(spec, problem, shape));
}

reference::PixelToGroup LuminanceMethod::assign(const KernelSpec& spec, const Problem&, const RunShape& shape) const {
  const uint32_t tx = spec.tile_x, ty = spec.tile_y, gx = shape.groups_x;
  return [=](uint32_t x, uint32_t y) { return (y / ty) * gx + x / tx; };
}

std::string LuminanceMethod::element_name(uint64_t i, const RunShape& shape) const {
  std::ostringstream s;
  s << "element " << i << " (tile " << i % shape.groups_x << "," << i / shape.groups_x << ")";
  return s.str();
}

double LuminanceMethod::check_sums(const KernelSpec& spec, const RunShape& shape,
                                   const std::vector<reference::LuminanceGroup>& expected, const std::vector<float>& got,
                                   ElementChecker& checker) const {
  const double h = spec.roundings(shape.error_context);
  reference::NeumaierSum gpu_total;
  for (uint64_t i = 0; i < expected.size(); ++i) {
    checker.check(element_name(i, shape), expected[i].sum, got[i], sum_bound(h, expected[i].abs_sum),
                  probable_sum_bound(h, expected[i].abs_sum));
    gpu_total.add(got[i]);
  }
  return gpu_total.value();
}

CheckResult LuminanceMethod::with_average(const KernelSpec& spec, const RunShape& shape,
                                          const std::vector<reference::LuminanceGroup>& expected, double gpu_total,
                                          ElementChecker& checker) {
  const auto total = reference::merge(expected);
  const double h = spec.roundings(shape.error_context);
  // The harness's own total of the partials is in double: its error is the partials' errors, already bounded.
  checker.check("average of the image", total.sum / total.pixels, gpu_total / total.pixels,
                sum_bound(h, total.abs_sum) / total.pixels);
  CheckResult o = checker.outcome();
  o.result = gpu_total / static_cast<double>(total.pixels);
  return o;
}

// ln is within 3 ulp outside [0.5, 2] and 2^-21 absolute inside; plus the rounding of delta + L (u) and the
// error of L itself (gamma_3 relative, L >= 0) passed through d ln(x) = dx / x <= relative error; then the
// sum's own roundings.
double log_sum_bound(const reference::LuminanceGroup& e, double roundings) {
  const double u = reference::kFloatUnitRoundoff;
  return 2.0 * (3 * u * e.log_abs_sum + e.pixels * (std::ldexp(1.0, -21) + reference::error_gamma(4)) +
                reference::error_gamma(roundings) * e.log_abs_sum);
}

}  // namespace shaderwatch
