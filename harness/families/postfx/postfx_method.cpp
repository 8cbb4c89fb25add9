// What the post-processing methods' checks share: the input as uploaded, and the image check against a reference
// made at the first check (and shared with the suite's other kernels of the same reference key).
#include "families/postfx/postfx_method.h"

#include <stdexcept>

#include "families/kernel_family.h"

namespace shaderwatch {

void require_uploaded_input(const KernelSpec& spec, const Problem& problem, const DerivedInput& input) {
  if (!input.data || input.data->size() != problem.items() * 4)
    throw std::logic_error(spec.name + ": the post-processing check needs the input as uploaded");
}

MethodCheck PostfxImageMethod::make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                                          DerivedInput input) const {
  require_uploaded_input(spec, problem, input);
  return [this, &spec, &problem, shape, input = std::move(input), image = std::shared_ptr<const ExpectedImage>{}](const Readback& got) mutable {
    if (!image) {
      image = shared_reference<ExpectedImage>(input.references.get(), postfx_family().reference_key(spec),
                                              [&] { return expected(spec, problem, input); });
    }
    return compare_image(*image, got.view<float>(output_floats(spec, shape)));
  };
}

}  // namespace shaderwatch
