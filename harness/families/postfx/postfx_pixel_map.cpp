// The per-pixel post-processing method (postfx_pixel.comp, its STAGE a formula of reference/postfx.h): one
// output pixel per input pixel, over the catalog's tiles.
#include "families/postfx/postfx_method.h"

namespace shaderwatch {

namespace {

class PixelMap final : public PostfxImageMethod {
 public:
  ExpectedImage expected(const KernelSpec& spec, const Problem& problem, const DerivedInput& input) const override {
    return expected_pixel_map(spec, problem.width, problem.height, *input.data, params_of(input));
  }
};

}  // namespace

const KernelMethod& postfx_pixel_map_method() {
  static const PixelMap method;
  return method;
}

}  // namespace shaderwatch
