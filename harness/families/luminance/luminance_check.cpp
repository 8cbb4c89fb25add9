// The luminance kernels' check: one sum (or sum, log-sum, min and max; or log-sums, the log-average and the
// exposure) per tile or workgroup, each against the reference over exactly the pixels the kernel assigns to it.
#include <sstream>
#include <stdexcept>

#include "families/luminance/luminance_family.h"

#include "check/sum_bounds.h"
#include "tracked.h"

namespace shaderwatch {

namespace {

// Bound of a float sum of ln(delta + L) over one element's pixels: ln is within 3 ulp outside [0.5, 2] and 2^-21
// absolute inside; plus the rounding of delta + L (u) and the error of L itself (gamma_3 relative, L >= 0)
// passed through d ln(x) = dx / x <= relative error; then the sum's own roundings.
double log_sum_bound(const reference::LuminanceGroup& e, double roundings) {
  const double u = reference::kFloatUnitRoundoff;
  return 2.0 * (3 * u * e.log_abs_sum + e.pixels * (std::ldexp(1.0, -21) + reference::error_gamma(4)) +
                reference::error_gamma(roundings) * e.log_abs_sum);
}

}  // namespace

std::vector<reference::LuminanceGroup> expected_luminance(const KernelSpec& spec, const Problem& problem,
                                                          const RunShape& shape) {
  const uint64_t g = shape.groups();
  // Which output element each pixel belongs to, as the shader assigns it.
  reference::PixelToGroup assign;
  if (spec.method == Method::LumGridStride) {
    const uint64_t width = problem.width, group = spec.group_x;
    assign = [=](uint32_t x, uint32_t y) { return static_cast<uint32_t>(((uint64_t{y} * width + x) / group) % g); };
  } else {
    const uint32_t tx = spec.tile_x, ty = spec.tile_y, gx = shape.groups_x;
    assign = [=](uint32_t x, uint32_t y) { return (y / ty) * gx + x / tx; };
  }
  return reference::reduce_luminance(problem.data, problem.width, problem.height, static_cast<uint32_t>(g), assign);
}

CheckResult check_luminance(const KernelSpec& spec, const RunShape& shape, const std::vector<reference::LuminanceGroup>& expected,
                        const Readback& output) {
  const bool stats = spec.method == Method::LumStats;
  const bool single = spec.method == Method::LumSinglePass;
  const uint64_t g = shape.groups();
  if (expected.size() != g) throw std::logic_error(spec.name + ": " + std::to_string(expected.size()) +
                                                   " reference elements for " + std::to_string(g) + " workgroups");
  const double h = spec.roundings(shape.error_context);
  ElementChecker checker;
  reference::NeumaierSum gpu_total;
  auto element_name = [&](uint64_t i) {
    std::ostringstream s;
    s << "element " << i;
    if (spec.method != Method::LumGridStride) s << " (tile " << i % shape.groups_x << "," << i / shape.groups_x << ")";
    return s.str();
  };
  if (stats) {
    const auto got = output.as<float>(g * 4);
    for (uint64_t i = 0; i < g; ++i) {
      const auto& e = expected[i];
      const float* v = &got[i * 4];
      checker.check(element_name(i) + " sum", e.sum, v[0], sum_bound(h, e.abs_sum), probable_sum_bound(h, e.abs_sum));
      checker.check(element_name(i) + " log-sum", e.log_sum, v[1], log_sum_bound(e, h));
      // min/max select a value exactly, but the value is a float dot product: within gamma_3 of its magnitude.
      const double minmax_bound = 2.0 * reference::error_gamma(3) * e.max_magnitude;
      checker.check(element_name(i) + " min", e.min, v[2], minmax_bound);
      checker.check(element_name(i) + " max", e.max, v[3], minmax_bound);
      gpu_total.add(v[0]);
    }
  } else if (spec.log_average) {
    // Per tile and in total: ln(delta + L) bounded as for the stats kernel; then Lavg = exp(total / N) and
    // the exposure 0.18 / Lavg, their bounds carried through exp and the division (reference/tracked.h).
    const auto got = output.as<float>(g + 3);
    reference::NeumaierSum gpu_log_total;
    for (uint64_t i = 0; i < g; ++i) {
      checker.check(element_name(i) + " log-sum", expected[i].log_sum, got[i], log_sum_bound(expected[i], h));
      gpu_log_total.add(got[i]);
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
  } else {
    const auto got = output.as<float>(g + (single ? 1 : 0));
    for (uint64_t i = 0; i < g; ++i) {
      checker.check(element_name(i), expected[i].sum, got[i], sum_bound(h, expected[i].abs_sum),
                    probable_sum_bound(h, expected[i].abs_sum));
      gpu_total.add(got[i]);
    }
    if (single) {
      const auto total = reference::merge(expected);
      const double total_h = spec.total_roundings(shape.error_context);
      checker.check("total (element " + std::to_string(g) + ")", total.sum, got[g], sum_bound(total_h, total.abs_sum),
                    probable_sum_bound(total_h, total.abs_sum));
    }
  }
  const auto total = reference::merge(expected);
  // The harness's own total of the partials is in double: its error is the partials' errors, already bounded.
  checker.check("average of the image", total.sum / total.pixels, gpu_total.value() / total.pixels,
                sum_bound(h, total.abs_sum) / total.pixels);
  CheckResult o = checker.outcome();
  o.result = gpu_total.value() / static_cast<double>(total.pixels);
  return o;
}

}  // namespace shaderwatch
