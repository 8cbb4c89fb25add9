#include "detection/running_order.h"

#include <algorithm>

namespace shaderwatch::detect {

double level(const std::vector<double>& y, std::size_t lo, std::size_t hi) {
  std::vector<double> v(y.begin() + static_cast<std::ptrdiff_t>(lo), y.begin() + static_cast<std::ptrdiff_t>(hi));
  std::sort(v.begin(), v.end());
  const std::size_t k = trimmed_count(v.size());
  double sum = 0;
  for (std::size_t i = k; i + k < v.size(); ++i) sum += v[i];
  return sum / static_cast<double>(v.size() - 2 * k);
}

std::vector<double> growing_levels(const std::vector<double>& y, std::size_t lo, std::size_t hi, bool suffixes) {
  std::vector<double> out(hi - lo + 1, 0.0);
  GrowingLevel growing(hi - lo);
  if (suffixes) {
    for (std::size_t t = hi; t-- > lo;) growing.add(y[t]), out[t - lo] = growing.level();
  } else {
    for (std::size_t t = lo + 1; t <= hi; ++t) growing.add(y[t - 1]), out[t - lo] = growing.level();
  }
  return out;
}

}  // namespace shaderwatch::detect
