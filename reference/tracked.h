#pragma once
// A double with a first-order bound on the error a float32 GPU evaluation of the same formula may have,
// under Vulkan's precision rules (Vulkan-Docs appendices/spirvenv.adoc): add, sub, mul correctly rounded
// (1 ulp in an unspecified rounding mode); division 2.5 ulp; exp/exp2 3 + 2|x| ulp; log/log2 3 ulp outside
// [0.5, 2] and 2^-21 absolute inside; pow as exp2(y * log2(x)). Each post-processing formula is written once
// as a template and evaluated with Tracked: `value` is the reference, `error` the per-pixel bound.
// Denormals may be flushed: every operation also allows 2^-126 absolute.
#include <algorithm>
#include <cmath>
#include <type_traits>

namespace shaderwatch::reference {

struct Tracked {
  double value = 0;
  double error = 0;

  Tracked() = default;
  Tracked(double v) : value(static_cast<float>(v)) {}  // constants and inputs: float32, exactly as the shader has them
  static Tracked exact(double v, double e) {
    Tracked t;
    t.value = v;
    t.error = e;
    return t;
  }
};

inline constexpr double kUlp = 1.0 / 8388608.0;   // relative size of one float32 ulp (upper bound)
inline constexpr double kFlush = 1.1754943508222875e-38;  // 2^-126: a flushed denormal

inline double ulps(double n, double v) { return n * kUlp * std::fabs(v) + kFlush; }

// Add, sub and mul are correctly rounded: on exact operands whose exact result is a float (zero or normal),
// every rounding mode returns it exactly. (An in-focus pixel's z - zf is exactly 0, and so is its CoC.)
inline bool exact_float_result(const Tracked& a, const Tracked& b, double v) {
  return a.error == 0 && b.error == 0 && static_cast<float>(v) == v && (v == 0 || std::fabs(v) >= kFlush);
}
inline Tracked operator+(Tracked a, Tracked b) {
  // x + a certain 0 is x (a denormal x may flush).
  if (b.value == 0 && b.error == 0) return Tracked::exact(a.value, a.error + (std::fabs(a.value) < kFlush ? kFlush : 0));
  if (a.value == 0 && a.error == 0) return b + a;
  const double v = a.value + b.value;
  return Tracked::exact(v, exact_float_result(a, b, v) ? 0.0 : a.error + b.error + ulps(1, v));
}
inline Tracked operator-(Tracked a, Tracked b) {
  const double v = a.value - b.value;
  return Tracked::exact(v, exact_float_result(a, b, v) ? 0.0 : a.error + b.error + ulps(1, v));
}
inline Tracked operator-(Tracked a) { return Tracked::exact(-a.value, a.error); }
inline Tracked operator*(Tracked a, Tracked b) {
  const double v = a.value * b.value;
  // A certain zero times a finite value is exactly zero, whatever that value's error.
  const bool certain_zero = (a.value == 0 && a.error == 0) || (b.value == 0 && b.error == 0);
  if (certain_zero || exact_float_result(a, b, v)) return Tracked::exact(v, 0.0);
  return Tracked::exact(v, std::fabs(a.value) * b.error + std::fabs(b.value) * a.error + a.error * b.error + ulps(1, v));
}
inline Tracked operator/(Tracked a, Tracked b) {
  const double v = a.value / b.value;
  if (a.value == 0 && a.error == 0 && std::fabs(b.value) > b.error) return Tracked::exact(v, 0.0);  // 0 / certain non-zero
  // d(a/b) = da/b - a db/b^2; the denominator's own error bounded away from zero by |b| - e_b.
  const double denom = std::max(std::fabs(b.value) - b.error, 0.0);
  const double e = denom > 0 ? (a.error + std::fabs(v) * b.error) / denom : INFINITY;
  return Tracked::exact(v, e + ulps(2.5, v));
}
inline Tracked& operator+=(Tracked& a, Tracked b) { return a = a + b; }

inline Tracked exp(Tracked x) {
  const double v = std::exp(x.value);
  return Tracked::exact(v, v * (std::expm1(x.error)) + ulps(3 + 2 * std::fabs(x.value), v));
}
inline Tracked exp2(Tracked x) {
  const double v = std::exp2(x.value);
  return Tracked::exact(v, v * std::expm1(x.error * M_LN2) + ulps(3 + 2 * std::fabs(x.value), v));
}
inline Tracked log_impl(Tracked x, double scale) {  // scale: 1 for ln, 1/ln2 for log2
  const double v = std::log(x.value) * scale;
  const double lo = std::max(x.value - x.error, 0.0);
  const double propagated = lo > 0 ? scale * std::log1p(x.error / lo) : INFINITY;
  const double own = (x.value >= 0.5 && x.value <= 2.0) ? std::ldexp(1.0, -21) : ulps(3, v);
  return Tracked::exact(v, propagated + own);
}
inline Tracked log(Tracked x) { return log_impl(x, 1.0); }
inline Tracked log2(Tracked x) { return log_impl(x, 1.0 / M_LN2); }
inline Tracked pow(Tracked x, Tracked y) { return exp2(y * log2(x)); }
// sqrt is 1 / inversesqrt: 2 ulp, then a 2.5 ulp division. sqrt of a certain 0 is 0.
inline Tracked sqrt(Tracked x) {
  const double v = std::sqrt(x.value);
  if (x.value == 0 && x.error == 0) return Tracked::exact(0.0, 0.0);
  const double lo = std::max(x.value - x.error, 0.0);
  const double propagated = lo > 0 ? x.error / (std::sqrt(lo) + v) : std::sqrt(x.error);
  return Tracked::exact(v, propagated + ulps(4.5, v));
}

// Exact operations: the error passes through (clamping can only shrink it).
inline Tracked max(Tracked a, Tracked b) {
  return Tracked::exact(std::max(a.value, b.value), std::max(a.error, b.error));
}
inline Tracked min(Tracked a, Tracked b) {
  return Tracked::exact(std::min(a.value, b.value), std::max(a.error, b.error));
}
inline Tracked clamp(Tracked x, Tracked lo, Tracked hi) { return min(max(x, lo), hi); }

// step(edge, x): a jump. Where x is within its error of the edge the GPU may take either side: the
// result is then 0 or 1 with an error of 1, and whatever it multiplies inherits that.
inline Tracked step(Tracked edge, Tracked x) {
  const double v = x.value < edge.value ? 0.0 : 1.0;
  const bool ambiguous = std::fabs(x.value - edge.value) <= x.error + edge.error;
  return Tracked::exact(v, ambiguous ? 1.0 : 0.0);
}
// 1 where x < 0, else 0. Where x is within its error of 0 (and not a certain 0) either side is possible.
inline Tracked negative(Tracked x) {
  const bool ambiguous = std::fabs(x.value) <= x.error && !(x.value == 0 && x.error == 0);
  return Tracked::exact(x.value < 0 ? 1.0 : 0.0, ambiguous ? 1.0 : 0.0);
}
inline Tracked smoothstep(Tracked e0, Tracked e1, Tracked x) {
  const Tracked t = clamp((x - e0) / (e1 - e0), Tracked(0.0), Tracked(1.0));
  return t * t * (Tracked(3.0) - Tracked(2.0) * t);
}

// x < edge ? below : above, with both branches evaluated. Where x is within its error of the edge the GPU
// may take either branch: the error then covers the other branch's value too.
inline Tracked select_below(Tracked x, Tracked edge, Tracked below, Tracked above) {
  const Tracked& chosen = x.value < edge.value ? below : above;
  if (std::fabs(x.value - edge.value) > x.error + edge.error) return chosen;
  return Tracked::exact(chosen.value, std::max(below.error, above.error) + std::fabs(below.value - above.value));
}

// acc = acc + a * b, term after term, bounded as Tracked's operator* and operator+ bound it but without their exact
// cases (a certain zero, a result that is a float), which only ever lower the bound: the same values, a bound as
// large or larger, at a fraction of the cost (a convolution's inner loop).
class SerialDot {
 public:
  void add_product(const Tracked& a, const Tracked& b) {
    const double v = a.value * b.value;
    value_ += v;
    error_ += std::fabs(a.value) * b.error + std::fabs(b.value) * a.error + a.error * b.error + kUlp * std::fabs(v) +
              kUlp * std::fabs(value_) + 2 * kFlush;
  }
  Tracked total() const { return Tracked::exact(value_, error_); }

 private:
  double value_ = 0, error_ = 0;
};

// A float32 sum of terms added one after another in a known order of rows (a gather's taps: dy, then dx), bounded
// in closed form rather than operation by operation: each term's own error, plus for every addition one ulp of the
// partial sum and a flushed denormal, the partial sum bounded by the sum of |terms| up to the end of its row. The
// same bound operator+ gives, but for partial sums taken at the row's end (a few percent over it on a 17-row
// window) and without its exact cases; it costs an add, not a Tracked operation, per term.
class RowOrderedSum {
 public:
  void add(double value, double error) {
    value_ += value;
    term_error_ += error;
    row_abs_ += std::fabs(value) + error;
    ++row_terms_;
  }
  void add(const Tracked& t) { add(t.value, t.error); }
  // A term the GPU computes exactly (a weight of exactly 1 times an input).
  void add_exact(double value) {
    value_ += value;
    row_abs_ += std::fabs(value);
    ++row_terms_;
  }
  void end_row() {
    abs_ += row_abs_;
    rounding_ += static_cast<double>(row_terms_) * (kUlp * abs_ + kFlush);
    row_abs_ = 0;
    row_terms_ = 0;
  }
  // After the last end_row().
  Tracked total() const { return Tracked::exact(value_, term_error_ + rounding_); }

 private:
  double value_ = 0, term_error_ = 0, rounding_ = 0, abs_ = 0, row_abs_ = 0;
  long row_terms_ = 0;
};

// The same vocabulary for plain doubles, so formulas compile for both.
inline double negative(double x) { return x < 0 ? 1.0 : 0.0; }
template <class F, std::enable_if_t<std::is_floating_point_v<F>, int> = 0>
F select_below(F x, F edge, F below, F above) {
  return x < edge ? below : above;
}
inline double step(double edge, double x) { return x < edge ? 0.0 : 1.0; }
inline double smoothstep(double e0, double e1, double x) {
  const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
  return t * t * (3 - 2 * t);
}

}  // namespace shaderwatch::reference
