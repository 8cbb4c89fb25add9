// The luminance reductions: one pass over the image writing a sum (or stats) per tile or workgroup; the
// single-pass kernels also their total (and the log-average and exposure), with an atomic counter.
#include "families/luminance/luminance_family.h"

namespace shaderwatch {

namespace {

class LuminanceRunner final : public FamilyRunner {
 public:
  explicit LuminanceRunner(RunContext& c) {
    const KernelSpec& spec = c.spec;
    const Problem& problem = c.problem;
    problem_items = problem.items();
    if (spec.method == Method::LumGridStride) {
      groups_x = grid_stride_groups(c.device.info(), problem_items, spec.group_x);
    } else {
      groups_x = static_cast<uint32_t>(ceil_div(problem.width, spec.tile_x));
      groups_y = static_cast<uint32_t>(ceil_div(problem.height, spec.tile_y));
    }
    const uint64_t groups = uint64_t{groups_x} * groups_y;
    push_.values[0] = problem.width;
    push_.values[1] = problem.height;
    push_.values[2] = static_cast<uint32_t>(problem_items);
    push_.values[3] = static_cast<uint32_t>(groups);
    const bool stats = spec.method == Method::LumStats;
    const bool single = spec.method == Method::LumSinglePass;
    // Single pass: the tile sums, the total, and for the log-average Lavg and the exposure.
    output = c.guarded(output_bytes, (groups + (single ? (spec.log_average ? 3 : 1) : 0)) * (stats ? kVec4 : 4));
    std::vector<Resource> resources{RunContext::storage(c.input), RunContext::storage(*output)};
    if (single) {
      counter = c.buffer(4);
      resources.push_back(RunContext::storage(*counter));
    }
    pass_ = c.pipeline(0, resources);
  }
  void record(VkCommandBuffer cmd) const override { pass_->dispatch(cmd, push_, groups_x, groups_y); }

 private:
  PushConstants push_;
  std::unique_ptr<ComputePipeline> pass_;
};

}  // namespace

std::unique_ptr<FamilyRunner> make_luminance_runner(RunContext& context) {
  return std::make_unique<LuminanceRunner>(context);
}

}  // namespace shaderwatch
