// Boids methods of one dispatch of one workgroup, writing two vec4: the sums of the positions by one
// invocation (boids_serial.comp) or one workgroup (boids_groupshared.comp), or their min and max by subgroup
// operations (boids_minmax.comp, ATOMIC 0).
#include "families/boids/boids_method.h"

namespace shaderwatch {

namespace {

constexpr uint64_t kOutputFloats = 8;  // the sums' vec4 (the second unused), or min then max

class OneGroupRunner final : public BoidsRunner {
 public:
  explicit OneGroupRunner(RunContext& c) : BoidsRunner(c) {
    output = c.guarded(output_bytes, kOutputFloats * sizeof(float));
    pass_ = c.pipeline(0, std::vector{RunContext::storage(c.input), RunContext::storage(*output)});
  }
  void record(VkCommandBuffer cmd) const override { pass_->dispatch(cmd, push_, groups_x, groups_y); }

 private:
  std::unique_ptr<ComputePipeline> pass_;
};

class OneGroup : public KernelMethod {
 public:
  std::unique_ptr<FamilyRunner> make_runner(RunContext& context) const override {
    return std::make_unique<OneGroupRunner>(context);
  }
};

class OneGroupSums final : public OneGroup {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    return boids_sums_check(spec, problem, shape);
  }
};

class MinMaxSubgroup final : public OneGroup {
 public:
  MethodCheck make_check(const KernelSpec&, const Problem& problem, const RunShape&, DerivedInput) const override {
    return [&problem](const Readback& output) {
      const auto got = output.as<float>(kOutputFloats);
      return check_boids_min_max(problem, {got[0], got[1], got[2]}, {got[4], got[5], got[6]});
    };
  }
};

}  // namespace

const KernelMethod& boids_serial_method() {
  static const OneGroupSums method;
  return method;
}

const KernelMethod& boids_groupshared_method() {
  static const OneGroupSums method;
  return method;
}

const KernelMethod& boids_min_max_subgroup_method() {
  static const MinMaxSubgroup method;
  return method;
}

}  // namespace shaderwatch
