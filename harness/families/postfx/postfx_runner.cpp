// The runner every post-processing method builds: its passes over the image with their workgroups.
#include "families/postfx/postfx_method.h"

#include <stdexcept>

namespace shaderwatch {

PostfxRunner::PostfxRunner(const RunContext& c) {
  problem_items = c.problem.items();
  push_.values[0] = c.problem.width;
  push_.values[1] = c.problem.height;
}

uint64_t PostfxRunner::tile(const RunContext& c) {
  const KernelSpec& spec = c.spec;
  const Problem& problem = c.problem;
  if (spec.tile_x == 0 || spec.tile_y == 0) throw std::logic_error(spec.name + ": the catalog gives no tile size");
  groups_x = static_cast<uint32_t>(ceil_div(problem.width, spec.tile_x));
  groups_y = static_cast<uint32_t>(ceil_div(problem.height, spec.tile_y));
  const reference::PostfxParams& p = params_of(c.derived);
  const reference::LensParams lens = postfx_lens();
  const float floats[] = {p.exposure, p.white_point, p.lavg, p.key, p.threshold, p.offset, p.lottes_b, p.lottes_c,
                          lens.focal_length, lens.f_stop, lens.focus_distance,
                          static_cast<float>(problem.width / lens.sensor_width), p.drago_lmax, p.drago_scale};
  for (size_t i = 0; i < std::size(floats); ++i) push_.set_float(4 + i, floats[i]);
  return uint64_t{groups_x} * groups_y;
}

void PostfxRunner::add_pass(std::unique_ptr<ComputePipeline> pipeline, std::pair<uint32_t, uint32_t> groups) {
  passes_.push_back({std::move(pipeline), groups});
}

void PostfxRunner::single_pass(RunContext& c, VkDeviceSize bytes) {
  output = c.guarded(output_bytes, bytes);
  add_pass(c.pipeline(0, std::vector{RunContext::storage(c.input), RunContext::storage(*output)}, c.spec.specialization),
           {groups_x, groups_y});
}

void PostfxRunner::record(VkCommandBuffer cmd) const {
  for (size_t i = 0; i < passes_.size(); ++i) {
    if (i > 0) full_barrier(cmd);
    passes_[i].pipeline->dispatch(cmd, push_, passes_[i].groups.first, passes_[i].groups.second);
  }
}

}  // namespace shaderwatch
