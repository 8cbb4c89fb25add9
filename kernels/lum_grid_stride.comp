#version 460
// Luminance sum by a grid-stride loop over the image as a flat array of vec4 (16-byte loads), UNROLL
// loads in flight per iteration, over a grid sized from the device (params.total_groups). Each workgroup
// writes the sum of the pixels its invocations visited: pixel i belongs to group (i / GROUP) % groups.
// Defines: GROUP (1-D workgroup size), UNROLL.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "luminance_common.glsl"

#define WG_THREADS GROUP
#include "workgroup_sum.glsl"

layout(local_size_x = GROUP) in;
layout(std430, binding = 1) writeonly buffer Partials { float partials[]; };

void main() {
  const uint stride = params.total_groups * GROUP;
  uint i = gl_WorkGroupID.x * GROUP + gl_LocalInvocationIndex;
  float acc = 0.0;
  // Full rounds: UNROLL independent loads, then their luminances added in order.
  for (; i + (UNROLL - 1) * stride < params.pixel_count; i += UNROLL * stride) {
    vec4 v[UNROLL];
    for (uint u = 0; u < UNROLL; ++u) v[u] = pixels[i + u * stride];
    for (uint u = 0; u < UNROLL; ++u) acc += luminance(v[u]);
  }
  for (; i < params.pixel_count; i += stride) acc += luminance(pixels[i]);
  const float total = workgroup_sum(acc);
  if (gl_LocalInvocationIndex == 0) partials[gl_WorkGroupID.x] = total;
}
