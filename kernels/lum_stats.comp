#version 460
// One read, four results per tile: sum of L, sum of ln(delta + L), min L, max L (the exposure inputs).
// Tiles and reads as lum_subgroup.comp; writes vec4(sum, log_sum, min, max) per tile.
// Needs L >= 0 (ln of a negative is undefined). Defines: GROUP_X GROUP_Y FETCH_X.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "luminance_common.glsl"

#define WG_THREADS (GROUP_X * GROUP_Y)
#include "workgroup_sum.glsl"

layout(local_size_x = GROUP_X, local_size_y = GROUP_Y) in;
layout(std430, binding = 1) writeonly buffer Stats { vec4 stats[]; };

const float kLogDelta = 1e-4;
shared float wg_min[WG_THREADS], wg_max[WG_THREADS];

void main() {
  const uint x0 = gl_WorkGroupID.x * (GROUP_X * FETCH_X) + gl_LocalInvocationID.x;
  const uint y = gl_WorkGroupID.y * GROUP_Y + gl_LocalInvocationID.y;
  float sum = 0.0, log_sum = 0.0, lo = uintBitsToFloat(0x7f800000u), hi = -uintBitsToFloat(0x7f800000u);
  if (y < params.height) {
    for (uint f = 0; f < FETCH_X; ++f) {
      const uint x = x0 + f * GROUP_X;
      if (x < params.width) {
        const float l = luminance(pixels[y * params.width + x]);
        sum += l;
        log_sum += log(kLogDelta + l);
        lo = min(lo, l);
        hi = max(hi, l);
      }
    }
  }
  const float tile_sum = workgroup_sum(sum);
  const float tile_log_sum = workgroup_sum(log_sum);
  // min/max: exact operations, so the grouping does not matter; subgroup then shared serial.
  const float sg_lo = subgroupMin(lo), sg_hi = subgroupMax(hi);
  race_delay();
  if (subgroupElect()) {
    wg_min[gl_SubgroupID] = sg_lo;
    wg_max[gl_SubgroupID] = sg_hi;
  }
  barrier();
  if (gl_LocalInvocationIndex == 0) {
    race_delay();
    float tile_lo = wg_min[0], tile_hi = wg_max[0];
    for (uint i = 1; i < gl_NumSubgroups; ++i) {
      tile_lo = min(tile_lo, wg_min[i]);
      tile_hi = max(tile_hi, wg_max[i]);
    }
    stats[group_linear_index()] = vec4(tile_sum, tile_log_sum, tile_lo, tile_hi);
  }
}
