// The separable Gaussian blur (postfx_blur.comp): an x pass into an intermediate image, then a y pass, each
// over the tiles its shader defines say (its plan, kernels/method_plans.cpp).
#include "families/postfx/postfx_method.h"

namespace shaderwatch {

namespace {

class Blur final : public PostfxImageMethod {
 public:
  ExpectedImage expected(const KernelSpec& spec, const Problem& problem, const DerivedInput& input) const override {
    return expected_blur(problem.width, problem.height, spec.blur_radius, *input.data);
  }
};

}  // namespace

const KernelMethod& postfx_blur_method() {
  static const Blur method;
  return method;
}

}  // namespace shaderwatch
