#include "boids.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "summation.h"

namespace shaderwatch::reference {

std::array<double, 3> BoidsStats::mean() const {
  std::array<double, 3> m{};
  for (int c = 0; c < 3; ++c) m[c] = sum[c] / static_cast<double>(count);
  return m;
}

BoidsStats boids_stats(std::span<const float> positions, uint64_t count) {
  if (count == 0) throw std::invalid_argument("boids_stats: no boids (count 0)");
  if (positions.size() < count * 4) {
    throw std::invalid_argument("boids_stats: " + std::to_string(positions.size()) + " floats hold fewer than " +
                                std::to_string(count) + " vec4 positions");
  }
  BoidsStats s;
  s.count = count;
  std::array<NeumaierSum, 3> sum, abs_sum;
  s.min.fill(INFINITY);
  s.max.fill(-INFINITY);
  std::array<bool, 3> whole{true, true, true};
  for (uint64_t i = 0; i < count; ++i) {
    for (int c = 0; c < 3; ++c) {
      const double v = positions[i * 4 + c];
      sum[c].add(v);
      abs_sum[c].add(std::fabs(v));
      s.min[c] = std::min(s.min[c], v);
      s.max[c] = std::max(s.max[c], v);
      whole[c] = whole[c] && std::trunc(v) == v;
    }
  }
  for (int c = 0; c < 3; ++c) {
    s.sum[c] = sum[c].value();
    s.abs_sum[c] = abs_sum[c].value();
    s.exact_in_float[c] = whole[c] && s.abs_sum[c] <= 16777216.0;
  }
  return s;
}

}  // namespace shaderwatch::reference
