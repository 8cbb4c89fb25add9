// The one dispatch every luminance method records: over the image, a sum (or stats) per tile or workgroup,
// laid out as its method says (workgroups, output floats, the single-pass kernels' atomic counter).
#include "families/luminance/luminance_method.h"

#include <tuple>

namespace shaderwatch {

namespace {

class LuminanceRunner final : public FamilyRunner {
 public:
  LuminanceRunner(RunContext& c, const LuminanceMethod& method) {
    const Problem& problem = c.problem;
    problem_items = problem.items();
    std::tie(groups_x, groups_y) = method.groups(c.spec, c.device.info(), problem);
    const uint64_t groups = uint64_t{groups_x} * groups_y;
    push_.values[0] = problem.width;
    push_.values[1] = problem.height;
    push_.values[2] = static_cast<uint32_t>(problem_items);
    push_.values[3] = static_cast<uint32_t>(groups);
    output = c.guarded(output_bytes, method.output_floats(c.spec, groups) * sizeof(float));
    std::vector<Resource> resources{RunContext::storage(c.input), RunContext::storage(*output)};
    if (method.has_counter()) {
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

std::unique_ptr<FamilyRunner> LuminanceMethod::make_runner(RunContext& context) const {
  return std::make_unique<LuminanceRunner>(context, *this);
}

}  // namespace shaderwatch
