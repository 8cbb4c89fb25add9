// The two-pass boids method: SLICES partial sums of the positions (boids_slices.comp), then one invocation
// over them.
#include "families/boids/boids_method.h"

namespace shaderwatch {

namespace {

constexpr uint32_t kSlices = 64;  // boids_slices.comp SLICES in the catalog

class TwoPassRunner final : public BoidsRunner {
 public:
  explicit TwoPassRunner(RunContext& c) : BoidsRunner(c) {
    partials = c.guarded(partials_bytes, kSlices * kVec4);
    output = c.guarded(output_bytes, kVec4);
    slices_ = c.pipeline(0, std::vector{RunContext::storage(c.input), RunContext::storage(*partials)});
    total_ = c.pipeline(1, std::vector{RunContext::storage(*partials), RunContext::storage(*output)});
  }
  void record(VkCommandBuffer cmd) const override {
    slices_->dispatch(cmd, push_, 1);
    full_barrier(cmd);
    PushConstants second;
    second.values[0] = kSlices;
    total_->dispatch(cmd, second, 1);
  }

 private:
  std::unique_ptr<ComputePipeline> slices_, total_;
};

class TwoPass final : public KernelMethod {
 public:
  std::unique_ptr<FamilyRunner> make_runner(RunContext& context) const override {
    return std::make_unique<TwoPassRunner>(context);
  }
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    return boids_sums_check(spec, problem, shape);
  }
};

}  // namespace

const KernelMethod& boids_two_pass_method() {
  static const TwoPass method;
  return method;
}

}  // namespace shaderwatch
