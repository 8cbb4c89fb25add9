#pragma once
// The boids family's methods, each one KernelMethod (families/kernel_method.h) in its own file: one
// workgroup (serial, groupshared, subgroup min/max: boids_one_group.cpp), two passes (boids_two_pass.cpp),
// atomics (boids_minmax_atomic.cpp), blending (boids_blend.cpp), a mip chain (boids_mip_chain.cpp), a device-sized
// grid then one workgroup (boids_grid.cpp). What
// they share: the runner's start and a texel copy (boids_runner.cpp), the checks against
// reference::boids_stats (boids_check.cpp).
#include <array>
#include <memory>

#include "families/kernel_method.h"

namespace shaderwatch {

// What every boids runner starts from: the positions, their count in the push constants.
class BoidsRunner : public FamilyRunner {
 protected:
  explicit BoidsRunner(const RunContext& c);
  uint32_t count_;
  PushConstants push_;
};

// Copies texel (0, 0) of `level` (in TRANSFER_SRC_OPTIMAL) into the start of `buffer`: a reduced image's answer.
void copy_texel_to_buffer(VkCommandBuffer cmd, const Image& image, uint32_t level, VkBuffer buffer);

// The check of the positions' sums, the output's first vec4, against their bounds. `scale` multiplies what
// the kernel wrote (the mip chain's average over its texels); with `counts_points`, w counts the positions.
MethodCheck boids_sums_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, double scale = 1.0,
                             bool counts_points = false);
// The min and max of each axis, exact; the result is the min of x.
CheckResult check_boids_min_max(const Problem& problem, const std::array<float, 3>& min, const std::array<float, 3>& max);
// The same of an output holding two vec4, the min then the max.
MethodCheck boids_min_max_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape);

// The family's methods (its table is boids_method(), boids_family.cpp).
const KernelMethod& boids_serial_method();
const KernelMethod& boids_groupshared_method();
const KernelMethod& boids_min_max_subgroup_method();
const KernelMethod& boids_two_pass_method();
const KernelMethod& boids_min_max_atomic_method();
const KernelMethod& boids_blend_method();
const KernelMethod& boids_mip_chain_method();
const KernelMethod& boids_grid_sums_method();
const KernelMethod& boids_grid_min_max_method();

}  // namespace shaderwatch
