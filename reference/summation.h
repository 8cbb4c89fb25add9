#pragma once
// Compensated summation in double for the CPU references. Neumaier's variant of Kahan's algorithm keeps
// the error of a sum of n doubles at about 2u|S| + O(n u^2) sum|x|, far below any float32 bound we test.
#include <cmath>
#include <cstddef>
#include <limits>

namespace shaderwatch::reference {

class NeumaierSum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    // Whichever operand is larger in magnitude keeps its low bits; recover the other's.
    if (std::fabs(sum_) >= std::fabs(x)) {
      compensation_ += (sum_ - t) + x;
    } else {
      compensation_ += (x - t) + sum_;
    }
    sum_ = t;
  }
  double value() const { return sum_ + compensation_; }

 private:
  double sum_ = 0.0;
  double compensation_ = 0.0;
};

// Unit roundoff of float32 with an unspecified (not necessarily round-to-nearest) rounding mode:
// Vulkan only promises correctly rounded OpFAdd/OpFMul, so one ulp, 2^-23, not half an ulp.
inline constexpr double kFloatUnitRoundoff = 1.0 / 8388608.0;

// Higham's gamma_h = h u / (1 - h u): bound on the relative error accumulated by h roundings.
// Returns +inf when h u >= 1, where the bound says nothing.
inline double error_gamma(double h) {
  const double hu = h * kFloatUnitRoundoff;
  return hu >= 1.0 ? std::numeric_limits<double>::infinity() : hu / (1.0 - hu);
}

// Higham and Mary's probabilistic bound (SIAM J. Sci. Comput. 41(5), 2019, Theorem 2.4): if the rounding errors
// of the h roundings on a value's path are independent and mean zero (round to nearest), the relative error
// they accumulate is at most gamma~_h(lambda) = exp(lambda sqrt(h) u + h u^2 / (1 - u)) - 1, about lambda sqrt(h) u,
// except with probability 2 exp(-lambda^2 (1 - u)^2 / 2). It grows with sqrt(h) where gamma_h grows with h, so on
// long serial sums it sees one lost value the worst case hides (h = 4095: 7.6 times tighter at lambda 9).
// lambda 9: 5e-18 per value's path, so a whole --check or benchmark suite (under 1e11 paths) stays below one
// false flag in a million runs. u as for error_gamma (one ulp): a margin of 2 on round to nearest. A device
// rounding towards zero has biased errors, outside the model.
inline constexpr double kProbableLambda = 9.0;
inline double probable_error_gamma(double h, double lambda = kProbableLambda) {
  const double u = kFloatUnitRoundoff;
  return std::expm1(lambda * std::sqrt(h) * u + h * u * u / (1.0 - u));
}

}  // namespace shaderwatch::reference
