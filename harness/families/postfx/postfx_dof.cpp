// The depth-of-field methods: the tile pass alone (postfx_dof_tiles.comp: per 16x16 tile the largest near and
// smallest far circle of confusion and their counts), and the tile pass then the gather and composite
// reading it (postfx_dof_composite.comp).
#include "families/postfx/postfx_method.h"

namespace shaderwatch {

namespace {

class DofTiles final : public KernelMethod {
 public:
  std::unique_ptr<FamilyRunner> make_runner(RunContext& c) const override {
    auto r = std::make_unique<PostfxRunner>(c);
    const uint64_t tiles = r->tile(c);
    r->single_pass(c, tiles * kVec4);  // a vec4 per tile
    return r;
  }
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                         DerivedInput input) const override {
    require_uploaded_input(spec, problem, input);
    return [&problem, shape, input = std::move(input)](const Readback& got) {
      return check_dof_tiles(problem.width, problem.height, *input.data, shape.groups_x, shape.groups_y,
                             got.as<float>(shape.groups() * 4));
    };
  }
};

class DofComposite final : public PostfxImageMethod {
 public:
  std::unique_ptr<FamilyRunner> make_runner(RunContext& c) const override {
    auto r = std::make_unique<PostfxRunner>(c);
    const uint64_t tiles = r->tile(c);
    r->partials = c.guarded(r->partials_bytes, tiles * kVec4);
    r->output = c.guarded(r->output_bytes, r->image_bytes());
    const auto input = RunContext::storage(c.input);
    auto tile_pass = c.pipeline(0, std::vector{input, RunContext::storage(*r->partials)});
    auto composite = c.pipeline(1, std::vector{input, RunContext::storage(*r->output), RunContext::storage(*r->partials)});
    r->add_pass(std::move(tile_pass), {r->groups_x, r->groups_y});
    r->add_pass(std::move(composite), {r->groups_x, r->groups_y});
    return r;
  }
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
