// The boids kernels' check: the sums of the positions against their bounds, or the exact min and max.
#include <bit>
#include <string>

#include "families/boids/boids_family.h"

#include "boids.h"
#include "check/sum_bounds.h"

namespace shaderwatch {

namespace {

float key_to_float(uint32_t key) {  // inverse of boids_minmax.comp's order_key
  const uint32_t u = (key & 0x80000000u) ? (key ^ 0x80000000u) : ~key;
  return std::bit_cast<float>(u);
}

}  // namespace

CheckResult check_boids(const KernelSpec& spec, const Problem& problem, const RunShape& shape, const Readback& output) {
  const auto ref = reference::boids_stats(problem.data, problem.count);
  ElementChecker checker;
  static const char* kAxis[3] = {"x", "y", "z"};
  CheckResult o;
  if (spec.method == Method::BoidsMinMaxAtomic) {
    const auto keys = output.as<uint32_t>(6);
    for (int c = 0; c < 3; ++c) {
      checker.check(std::string("min ") + kAxis[c], ref.min[c], key_to_float(keys[c]), 0);
      checker.check(std::string("max ") + kAxis[c], ref.max[c], key_to_float(keys[3 + c]), 0);
    }
    o = checker.outcome();
    o.result = key_to_float(keys[0]);
    return o;
  }
  const auto got = output.as<float>(spec.method == Method::BoidsMinMaxSubgroup ? 8 : 4);
  if (spec.method == Method::BoidsMinMaxSubgroup) {
    for (int c = 0; c < 3; ++c) {
      checker.check(std::string("min ") + kAxis[c], ref.min[c], got[c], 0);
      checker.check(std::string("max ") + kAxis[c], ref.max[c], got[4 + c], 0);
    }
    o = checker.outcome();
    o.result = got[0];
    return o;
  }
  // Sums. The mip chain holds the average over side^2 texels (w: the fraction of texels with a boid);
  // scaling by side^2, a power of two, is exact.
  double scale = 1.0;
  if (spec.method == Method::BoidsMipChain) {
    const double side = mip_chain_side(problem.count);
    scale = side * side;
  }
  const double h = spec.roundings(shape.error_context);
  for (int c = 0; c < 3; ++c) {
    checker.check(std::string("sum ") + kAxis[c], ref.sum[c], got[c] * scale, sum_bound(h, ref.abs_sum[c]),
                  probable_sum_bound(h, ref.abs_sum[c]));
  }
  // Blending and the mip chain also count the points (w = 1 each): exact for N < 2^24.
  if (spec.method == Method::BoidsBlend || spec.method == Method::BoidsMipChain) {
    checker.check("points counted (w)", static_cast<double>(problem.count), got[3] * scale, 0);
  }
  o = checker.outcome();
  o.result = got[0] * scale / static_cast<double>(problem.count);
  return o;
}

}  // namespace shaderwatch
