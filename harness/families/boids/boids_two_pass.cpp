// The two-pass boids method: SLICES partial sums of the positions (boids_slices.comp), then one invocation
// over them (its plan, kernels/method_plans.cpp).
#include "families/boids/boids_method.h"

namespace shaderwatch {

namespace {

class TwoPass final : public KernelMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    return boids_sums_check(spec, problem, shape);
  }
};

}  // namespace

const KernelMethod& boids_two_pass_method() {
  static const TwoPass method;
  return method;
}

}  // namespace shaderwatch
