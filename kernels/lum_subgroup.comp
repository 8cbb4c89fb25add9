#version 460
// Luminance tile sums with subgroupAdd: each invocation adds FETCH_X pixels of its row, strided by
// GROUP_X so neighbouring invocations read neighbouring pixels (coalesced), then workgroup_sum.
// Tile: (GROUP_X * FETCH_X) x GROUP_Y pixels. Defines: GROUP_X GROUP_Y FETCH_X.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "luminance_common.glsl"

#define WG_THREADS (GROUP_X * GROUP_Y)
#include "workgroup_sum.glsl"

layout(local_size_x = GROUP_X, local_size_y = GROUP_Y) in;
layout(std430, binding = 1) writeonly buffer Partials { float partials[]; };

void main() {
  const uint x0 = gl_WorkGroupID.x * (GROUP_X * FETCH_X) + gl_LocalInvocationID.x;
  const uint y = gl_WorkGroupID.y * GROUP_Y + gl_LocalInvocationID.y;
  float acc = 0.0;
  for (uint f = 0; f < FETCH_X; ++f) acc += luminance_at(x0 + f * GROUP_X, y);
  const float total = workgroup_sum(acc);
  if (gl_LocalInvocationIndex == 0) partials[group_linear_index()] = total;
}
