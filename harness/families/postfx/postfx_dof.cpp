// The depth-of-field methods: the tile pass alone (postfx_dof_tiles.comp: per 16x16 tile the largest near and
// smallest far circle of confusion and their counts), and the tile pass then the gather and composite
// reading it (postfx_dof_composite.comp).
#include "families/postfx/postfx_method.h"

namespace shaderwatch {

namespace {

class DofTiles final : public KernelMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                         DerivedInput input) const override {
    require_uploaded_input(spec, problem, input);
    return [&spec, &problem, shape, input = std::move(input)](const Readback& got) {
      return check_dof_tiles(problem.width, problem.height, *input.data, shape.groups_x, shape.groups_y,
                             got.as<float>(output_floats(spec, shape)));
    };
  }
};

class DofComposite final : public PostfxImageMethod {
 public:
  ExpectedImage expected(const KernelSpec& spec, const Problem& problem, const DerivedInput& input) const override {
    return expected_dof_composite(problem.width, problem.height, spec.dof_max_radius, *input.data);
  }
};

}  // namespace

const KernelMethod& postfx_dof_tiles_method() {
  static const DofTiles method;
  return method;
}

const KernelMethod& postfx_dof_composite_method() {
  static const DofComposite method;
  return method;
}

}  // namespace shaderwatch
