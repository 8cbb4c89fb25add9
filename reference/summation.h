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

}  // namespace shaderwatch::reference
