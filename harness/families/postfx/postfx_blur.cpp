// The separable Gaussian blur (postfx_blur.comp): an x pass into an intermediate image, then a y pass. Each
// pass's tile is in its shader defines (TILE_X, TILE_Y), not the catalog's tile size.
#include "families/postfx/postfx_method.h"

#include <stdexcept>
#include <string>

namespace shaderwatch {

namespace {

// Workgroups {x, y} of blur pass `pass`: its shader writes the TILE_X x TILE_Y pixels its catalog defines say.
std::pair<uint32_t, uint32_t> blur_groups(const KernelSpec& spec, size_t pass, const Problem& problem) {
  auto tile = [&](const std::string& name) -> uint64_t {
    for (const auto& [key, value] : spec.shaders.at(pass).defines)
      if (key == name) return std::stoul(value);
    throw std::logic_error(spec.name + ": blur pass " + std::to_string(pass) + " lacks " + name);
  };
  return {static_cast<uint32_t>(ceil_div(problem.width, tile("TILE_X"))),
          static_cast<uint32_t>(ceil_div(problem.height, tile("TILE_Y")))};
}

class BlurRunner final : public PostfxRunner {
 public:
  explicit BlurRunner(RunContext& c) : PostfxRunner(c) {
    const auto w = blur_weights(c.spec.blur_radius);
    weights_ = c.buffer(w.size() * sizeof(float));
    weights_->upload(w.data(), w.size() * sizeof(float));
    partials = c.guarded(partials_bytes, image_bytes());  // the x pass's output
    output = c.guarded(output_bytes, image_bytes());
    const auto weights = RunContext::storage(*weights_);
    auto x = c.pipeline(0, std::vector{RunContext::storage(c.input), RunContext::storage(*partials), weights});
    auto y = c.pipeline(1, std::vector{RunContext::storage(*partials), RunContext::storage(*output), weights});
    std::tie(groups_x, groups_y) = blur_groups(c.spec, 0, c.problem);
    add_pass(std::move(x), {groups_x, groups_y});
    add_pass(std::move(y), blur_groups(c.spec, 1, c.problem));
  }

 private:
  std::unique_ptr<Buffer> weights_;
};

class Blur final : public PostfxImageMethod {
 public:
  std::unique_ptr<FamilyRunner> make_runner(RunContext& context) const override {
    return std::make_unique<BlurRunner>(context);
  }
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
