// The atomic boids min/max method (boids_minmax.comp, ATOMIC 1): one invocation per position, atomicMin and
// atomicMax on order-preserving keys of the floats (its plan, kernels/method_plans.cpp, fills their identities).
#include "families/boids/boids_method.h"

#include <bit>

namespace shaderwatch {

namespace {

float key_to_float(uint32_t key) {  // inverse of boids_minmax.comp's order_key
  const uint32_t u = (key & 0x80000000u) ? (key ^ 0x80000000u) : ~key;
  return std::bit_cast<float>(u);
}

class MinMaxAtomic final : public KernelMethod {
 public:
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    return [&problem, keys_written = output_floats(spec, shape)](const Readback& output) {
      const auto keys = output.as<uint32_t>(keys_written);  // min x, y, z, then max x, y, z
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
