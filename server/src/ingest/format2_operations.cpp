#include "ingest/format2_operations.h"

#include <map>

namespace shaderwatch {

std::string format2_operation(const std::string& kernel) {
  // Frozen: the bench's catalog (kernels/catalog.cpp, KernelSpec::operation) when format 3 began sending it.
  static const std::map<std::string, std::string, std::less<>> kOperations = {
      {"lum/interleaved_256", "luminance sum"},
      {"lum/sequential_256", "luminance sum"},
      {"lum/unrolled_subgroup_256", "luminance sum"},
      {"lum/unrolled_literal_256", "luminance sum"},
      {"lum/prefetch2_64", "luminance sum"},
      {"lum/prefetch2_128", "luminance sum"},
      {"lum/prefetch4_16", "luminance sum"},
      {"lum/prefetch4_64", "luminance sum"},
      {"lum/prefetch4_256", "luminance sum"},
      {"lum/prefetch4_1024", "luminance sum"},
      {"lum/prefetch4_2xshared_1024", "luminance sum"},
      {"lum/fetch16_1024", "luminance sum"},
      {"lum/subgroup_add_256", "luminance sum"},
      {"lum/grid_stride_vec4", "luminance sum"},
      {"lum/single_pass_atomic", "luminance sum"},
      {"lum/log_average_exposure", "log-average luminance"},
      {"lum/stats_sum_log_min_max", "luminance statistics"},
      {"boids/blend_1x1", "boids average"},
      {"boids/mip_chain", "boids average"},
      {"boids/single_invocation", "boids average"},
      {"boids/two_pass_rows", "boids average"},
      {"boids/two_pass_transposed", "boids average"},
      {"boids/groupshared", "boids average"},
      {"boids/groupshared_subgroup", "boids average"},
      {"boids/minmax_subgroup", "boids min and max"},
      {"boids/minmax_atomic", "boids min and max"},
      {"postfx/rgb_to_yxy", "RGB to Yxy"},
      {"postfx/yxy_to_rgb", "Yxy to RGB"},
      {"postfx/tonemap_reinhard", "tone mapping"},
      {"postfx/tonemap_reinhard_extended", "tone mapping"},
      {"postfx/tonemap_hable", "tone mapping"},
      {"postfx/tonemap_aces_narkowicz", "tone mapping"},
      {"postfx/tonemap_hejl_burgess_dawson", "tone mapping"},
      {"postfx/tonemap_lottes", "tone mapping"},
      {"postfx/tonemap_uchimura", "tone mapping"},
      {"postfx/tonemap_drago", "tone mapping"},
      {"postfx/tonemap_day_insomniac", "tone mapping"},
      {"postfx/tonemap_aces_hill", "tone mapping"},
      {"postfx/bright_pass", "bright pass"},
      {"postfx/local_gamma", "local gamma"},
      {"postfx/fused_reinhard", "fused tone-mapping pipeline"},
      {"postfx/fused_hable", "fused tone-mapping pipeline"},
      {"postfx/fused_aces_narkowicz", "fused tone-mapping pipeline"},
      {"postfx/coc", "circle of confusion"},
      {"postfx/dof_tiles", "depth-of-field tiles"},
      {"postfx/dof_composite", "depth of field"},
      {"postfx/blur_naive_r16", "Gaussian blur, radius 16"},
      {"postfx/blur_shared_r16", "Gaussian blur, radius 16"},
  };
  const auto it = kOperations.find(kernel);
  return it == kOperations.end() ? kernel : it->second;
}

}  // namespace shaderwatch
