#pragma once
// CPU reference for the boids reductions: per-component sum (compensated, in double), sum of absolute
// values (the scale of the float32 summation bound), min and max, of N positions stored as vec4 (xyz, w
// unused) so the GPU buffer layout is std430-friendly without a scalar-layout extension.
#include <array>
#include <cstdint>
#include <span>

namespace shaderwatch::reference {

struct BoidsStats {
  std::array<double, 3> sum{}, abs_sum{}, min{}, max{};
  uint64_t count = 0;
  // Per component: every value a whole number and sum|x| <= 2^24. Then every partial sum a float adder makes,
  // in any order or grouping, is a whole number of at most 24 bits, exact: the float sum is the exact one.
  std::array<bool, 3> exact_in_float{};
  std::array<double, 3> mean() const;
};

// positions: count * 4 floats (x, y, z, unused).
BoidsStats boids_stats(std::span<const float> positions, uint64_t count);

}  // namespace shaderwatch::reference
