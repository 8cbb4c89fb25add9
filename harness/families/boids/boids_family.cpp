// The boids reductions as a kernel family: a count of vec4 positions, their average, min and max.
#include "families/boids/boids_family.h"

#include "families/boids/boids_method.h"
#include "families/kernel_family.h"

namespace shaderwatch {

const KernelMethod& boids_method(Method id) {
  static const MethodTable<KernelMethod> table{
      {Method::BoidsSerial, &boids_serial_method()},
      {Method::BoidsTwoPass, &boids_two_pass_method()},
      {Method::BoidsGroupshared, &boids_groupshared_method()},
      {Method::BoidsBlend, &boids_blend_method()},
      {Method::BoidsMipChain, &boids_mip_chain_method()},
      {Method::BoidsMinMaxSubgroup, &boids_min_max_subgroup_method()},
      {Method::BoidsMinMaxAtomic, &boids_min_max_atomic_method()},
      {Method::BoidsGridSum, &boids_grid_sums_method()},
      {Method::BoidsGridMinMax, &boids_grid_min_max_method()},
  };
  return find_method(table, id, "the boids family");
}

namespace {

std::vector<CheckInput> boids_check_inputs() {
  std::vector<CheckInput> inputs;
  // Counts that are not multiples of 64 or 256.
  for (uint64_t n : {4096ull, 1ull, 1000ull, 65537ull}) inputs.push_back({InputKind::Random, {0, 0, n}});
  for (InputKind kind : {InputKind::Exponents, InputKind::Zeros, InputKind::Negative}) inputs.push_back({kind, {0, 0, 4099}});
  // All negative, one position and one workgroup: a min/max or sign bug shows whatever the seed.
  for (uint64_t n : {1ull, 64ull}) inputs.push_back({InputKind::Negative, {0, 0, n}});
  // Whole numbers, whose float sums are exact: the sums are checked with no tolerance, so one position lost from a
  // long sum fails (of random positions, one of 65,537 lies within the sum's probabilistic bound).
  for (uint64_t n : {65535ull, 65537ull}) inputs.push_back({InputKind::Whole, {0, 0, n}});
  return inputs;
}

}  // namespace

const KernelFamily& boids_family() {
  static const KernelFamily family{
      .id = Family::Boids,
      .name = "boids",
      .display_name = "boids",
      .size = family_size_kind(Family::Boids),
      .benchmark_input = InputKind::Random,
      .make_problem = [](InputKind kind, const SizeSpec& size, uint64_t seed) {
        return make_boids_problem(kind, size.count, seed);
      },
      .generator_version = 1,  // as of 2026-11-26
      .derive_input = nullptr,
      .input_variant = nullptr,
      .reference_key = nullptr,
      // The min/max kernels get extreme values past the positions: GPU min and max pass over a NaN (a loop that
      // read one position too many passed the checks). The sums get NaN, which any sum spreads.
      .input_guard = [](const KernelSpec& spec) {
        const bool min_max = spec.method == Method::BoidsMinMaxSubgroup || spec.method == Method::BoidsMinMaxAtomic ||
                             spec.method == Method::BoidsGridMinMax;
        return min_max ? GuardFill::Extremes : GuardFill::NaN;
      },
      .method = boids_method,
      .check_ns_per_item = 10,  // sums, min/max and a mip chain of positions
      .check_inputs = boids_check_inputs,
  };
  return family;
}

}  // namespace shaderwatch
