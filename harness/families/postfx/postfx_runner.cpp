// The post-processing kernels: per-pixel maps, the depth-of-field tiles and composite, the two-pass blur.
// Tiles are the catalog's (spec.tile_x x spec.tile_y pixels per workgroup); the blur's passes say theirs
// in their shader defines.
#include "families/postfx/postfx_family.h"

#include "families/postfx/postfx_check.h"

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

class PostfxRunner final : public FamilyRunner {
 public:
  explicit PostfxRunner(RunContext& c) : method_(c.spec.method) {
    const KernelSpec& spec = c.spec;
    const Problem& problem = c.problem;
    problem_items = problem.items();
    const uint64_t image_bytes = problem_items * kVec4;
    const auto input = RunContext::storage(c.input);
    push_.values[0] = problem.width;
    push_.values[1] = problem.height;
    if (method_ == Method::Blur) {
      const auto w = blur_weights(spec.blur_radius);
      weights_ = c.buffer(w.size() * sizeof(float));
      weights_->upload(w.data(), w.size() * sizeof(float));
      partials = c.guarded(partials_bytes, image_bytes);  // the x pass's output
      output = c.guarded(output_bytes, image_bytes);
      passes_.push_back(c.pipeline(0, std::vector{input, RunContext::storage(*partials), RunContext::storage(*weights_)}));
      passes_.push_back(c.pipeline(1, std::vector{RunContext::storage(*partials), RunContext::storage(*output), RunContext::storage(*weights_)}));
      std::tie(groups_x, groups_y) = blur_groups(spec, 0, problem);
      second_groups_ = blur_groups(spec, 1, problem);
      return;
    }
    if (spec.tile_x == 0 || spec.tile_y == 0) throw std::logic_error(spec.name + ": the catalog gives no tile size");
    groups_x = static_cast<uint32_t>(ceil_div(problem.width, spec.tile_x));
    groups_y = static_cast<uint32_t>(ceil_div(problem.height, spec.tile_y));
    second_groups_ = {groups_x, groups_y};
    const uint64_t groups = uint64_t{groups_x} * groups_y;
    const reference::PostfxParams& p = c.postfx.params;
    const reference::LensParams lens = postfx_lens();
    const float floats[] = {p.exposure, p.white_point, p.lavg, p.key, p.threshold, p.offset, p.lottes_b, p.lottes_c,
                            lens.focal_length, lens.f_stop, lens.focus_distance,
                            static_cast<float>(problem.width / lens.sensor_width), p.drago_lmax, p.drago_scale};
    for (size_t i = 0; i < std::size(floats); ++i) push_.set_float(4 + i, floats[i]);
    if (method_ == Method::DofComposite) {  // the tiles, then the composite reading them
      partials = c.guarded(partials_bytes, groups * kVec4);
      output = c.guarded(output_bytes, image_bytes);
      passes_.push_back(c.pipeline(0, std::vector{input, RunContext::storage(*partials)}));
      passes_.push_back(c.pipeline(1, std::vector{input, RunContext::storage(*output), RunContext::storage(*partials)}));
      return;
    }
    output = c.guarded(output_bytes, method_ == Method::PixelMap ? image_bytes : groups * kVec4);
    passes_.push_back(c.pipeline(0, std::vector{input, RunContext::storage(*output)},
                                                        spec.specialization));
  }

  void record(VkCommandBuffer cmd) const override {
    passes_[0]->dispatch(cmd, push_, groups_x, groups_y);
    if (passes_.size() < 2) return;
    full_barrier(cmd);
    passes_[1]->dispatch(cmd, push_, second_groups_.first, second_groups_.second);
  }
  bool writes_image() const override {
    return method_ == Method::PixelMap || method_ == Method::Blur || method_ == Method::DofComposite;
  }

 private:
  Method method_;
  PushConstants push_;
  std::vector<std::unique_ptr<ComputePipeline>> passes_;
  std::unique_ptr<Buffer> weights_;
  std::pair<uint32_t, uint32_t> second_groups_{1, 1};
};

}  // namespace

std::unique_ptr<FamilyRunner> make_postfx_runner(RunContext& context) { return std::make_unique<PostfxRunner>(context); }

}  // namespace shaderwatch
