#pragma once
// The bound of a float sum whose inputs each pass through h roundings, scaled by sum|x| (Higham's gamma_h): the
// worst case, and the probabilistic one no looser than it (reference/summation.h has both gammas).
#include <algorithm>

#include "summation.h"

namespace shaderwatch {

inline double sum_bound(double roundings, double scale) { return 2.0 * reference::error_gamma(roundings) * scale; }
inline double probable_sum_bound(double roundings, double scale) {
  return std::min(sum_bound(roundings, scale), 2.0 * reference::probable_error_gamma(roundings) * scale);
}

}  // namespace shaderwatch
