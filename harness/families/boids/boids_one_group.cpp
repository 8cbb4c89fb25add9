// Boids methods of one dispatch of one workgroup, writing two vec4 (their plan, kernels/method_plans.cpp): the
// sums of the positions by one invocation (boids_serial.comp) or one workgroup (boids_groupshared.comp), or
// their min and max by subgroup operations (boids_minmax.comp, ATOMIC 0).
#include "families/boids/boids_method.h"

namespace shaderwatch {

namespace {

class OneGroupSums final : public KernelMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    return boids_sums_check(spec, problem, shape);
  }
};

class MinMaxSubgroup final : public KernelMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    return boids_min_max_check(spec, problem, shape);
  }
};

}  // namespace

const KernelMethod& boids_serial_method() {
  static const OneGroupSums method;
  return method;
}

const KernelMethod& boids_groupshared_method() {
  static const OneGroupSums method;
  return method;
}

const KernelMethod& boids_min_max_subgroup_method() {
  static const MinMaxSubgroup method;
  return method;
}

}  // namespace shaderwatch
