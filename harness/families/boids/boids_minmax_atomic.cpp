// The atomic boids min/max method (boids_minmax.comp, ATOMIC 1): one invocation per position, atomicMin and
// atomicMax on order-preserving keys of the floats.
#include "families/boids/boids_method.h"

#include <bit>

namespace shaderwatch {

namespace {

constexpr uint32_t kKeys = 6;  // min x, y, z, then max x, y, z

float key_to_float(uint32_t key) {  // inverse of boids_minmax.comp's order_key
  const uint32_t u = (key & 0x80000000u) ? (key ^ 0x80000000u) : ~key;
  return std::bit_cast<float>(u);
}

class MinMaxAtomicRunner final : public BoidsRunner {
 public:
  explicit MinMaxAtomicRunner(RunContext& c) : BoidsRunner(c) {
    groups_x = static_cast<uint32_t>(ceil_div(problem_items, c.spec.group_x));
    output = c.guarded(output_bytes, kKeys * 4);
    pass_ = c.pipeline(0, std::vector{RunContext::storage(c.input), RunContext::storage(*output)});
  }
  void record(VkCommandBuffer cmd) const override {
    // Identities: min starts at the largest key, max at the smallest; both decode to NaN if untouched.
    vkCmdFillBuffer(cmd, output->handle(), 0, 12, 0xFFFFFFFFu);
    vkCmdFillBuffer(cmd, output->handle(), 12, 12, 0u);
    full_barrier(cmd);
    pass_->dispatch(cmd, push_, groups_x);
  }

 private:
  std::unique_ptr<ComputePipeline> pass_;
};

class MinMaxAtomic final : public KernelMethod {
 public:
  std::unique_ptr<FamilyRunner> make_runner(RunContext& context) const override {
    return std::make_unique<MinMaxAtomicRunner>(context);
  }
  MethodCheck make_check(const KernelSpec&, const Problem& problem, const RunShape&, DerivedInput) const override {
    return [&problem](const Readback& output) {
      const auto keys = output.as<uint32_t>(kKeys);
      return check_boids_min_max(problem, {key_to_float(keys[0]), key_to_float(keys[1]), key_to_float(keys[2])},
                                 {key_to_float(keys[3]), key_to_float(keys[4]), key_to_float(keys[5])});
    };
  }
};

}  // namespace

const KernelMethod& boids_min_max_atomic_method() {
  static const MinMaxAtomic method;
  return method;
}

}  // namespace shaderwatch
