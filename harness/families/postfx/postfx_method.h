#pragma once
// The post-processing family's methods, each one KernelMethod (families/kernel_method.h) in its own file:
// per-pixel maps (postfx_pixel_map.cpp), the two-pass blur (postfx_blur.cpp), the depth-of-field tiles and
// composite (postfx_dof.cpp). Their runs are their plans (kernels/method_plans.cpp). What they share: the check
// of an output image against an expected one (postfx_method.cpp), and the references themselves (postfx_check.h).
#include "families/kernel_method.h"
#include "families/postfx/postfx_check.h"

namespace shaderwatch {

// Throws std::logic_error unless `input` holds the image as uploaded: every post-processing check reads it.
void require_uploaded_input(const KernelSpec& spec, const Problem& problem, const DerivedInput& input);

// A method whose output is an image the size of the input: every pixel against expected(), computed at the
// first check and kept.
class PostfxImageMethod : public KernelMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                         DerivedInput input) const final;
  bool writes_image() const final { return true; }
  virtual ExpectedImage expected(const KernelSpec& spec, const Problem& problem, const DerivedInput& input) const = 0;
};

// The family's methods (its table is postfx_method(), postfx_family.cpp).
const KernelMethod& postfx_pixel_map_method();
const KernelMethod& postfx_blur_method();
const KernelMethod& postfx_dof_tiles_method();
const KernelMethod& postfx_dof_composite_method();

}  // namespace shaderwatch
