#version 460
// Single-pass luminance sum: tile sums as lum_subgroup.comp, then the last workgroup to finish (found with
// an atomic counter, no spinning) adds all tile sums and writes the total to partials[total_groups].
// It resets the counter, so the next dispatch starts from zero. Defines: GROUP_X GROUP_Y FETCH_X, LOG_AVERAGE:
// 1 sums ln(1e-4 + L) instead of L (Reinhard 2002), and the last group also writes the log-average
// luminance Lavg = exp(total / pixels) to partials[total_groups + 1] and the exposure key / Lavg (key 0.18)
// to partials[total_groups + 2].
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "luminance_common.glsl"

#define WG_THREADS (GROUP_X * GROUP_Y)
#include "workgroup_sum.glsl"

layout(local_size_x = GROUP_X, local_size_y = GROUP_Y) in;
// coherent: the last group reads other groups' partials in the same dispatch.
layout(std430, binding = 1) coherent buffer Partials { float partials[]; };
layout(std430, binding = 2) coherent buffer Counter { uint groups_done; };

shared bool is_last_group;

void main() {
  const uint x0 = gl_WorkGroupID.x * (GROUP_X * FETCH_X) + gl_LocalInvocationID.x;
  const uint y = gl_WorkGroupID.y * GROUP_Y + gl_LocalInvocationID.y;
  float acc = 0.0;
  for (uint f = 0; f < FETCH_X; ++f) {
#if LOG_AVERAGE
    const uint x = x0 + f * GROUP_X;
    if (x < params.width && y < params.height) acc += log(1e-4 + luminance(pixels[y * params.width + x]));
#else
    acc += luminance_at(x0 + f * GROUP_X, y);
#endif
  }
  const float tile_sum = workgroup_sum(acc);
  race_delay();
  if (gl_LocalInvocationIndex == 0) {
    partials[group_linear_index()] = tile_sum;
    memoryBarrierBuffer();  // the partial is visible device-wide before the counter says so
    is_last_group = atomicAdd(groups_done, 1u) == params.total_groups - 1;
  }
  barrier();
  race_delay();
  if (!is_last_group) return;
  memoryBarrierBuffer();
  float lane_sum = 0.0;
  for (uint g = gl_LocalInvocationIndex; g < params.total_groups; g += WG_THREADS) lane_sum += partials[g];
  const float total = workgroup_sum(lane_sum);
  if (gl_LocalInvocationIndex == 0) {
    partials[params.total_groups] = total;
#if LOG_AVERAGE
    const float lavg = exp(total / float(params.pixel_count));
    partials[params.total_groups + 1] = lavg;
    partials[params.total_groups + 2] = 0.18 / lavg;
#endif
    groups_done = 0;
  }
}
