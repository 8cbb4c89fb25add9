#version 460
// Per-component min and max of the positions. ATOMIC 0: one workgroup, strided loop, subgroupMin/Max,
// then invocation 0 over the subgroups' results; writes result[0] = min, result[1] = max.
// ATOMIC 1: one invocation per position, atomicMin/atomicMax on order-preserving uint keys in keys[0..5]
// (the harness fills them with the identities first). Min and max are exact: no tolerance.
// Defines: GROUP ATOMIC.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "boids_common.glsl"
#include "race_delay.glsl"

layout(local_size_x = GROUP) in;

#if ATOMIC
layout(std430, binding = 1) buffer Keys { uint keys[6]; };

// Flips the sign bit of positives and every bit of negatives: uint order then matches float order.
uint order_key(float f) {
  const uint u = floatBitsToUint(f);
  return u ^ ((u >> 31) != 0u ? 0xFFFFFFFFu : 0x80000000u);
}

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= params.count) return;
  const vec3 p = positions[i].xyz;
  for (int c = 0; c < 3; ++c) {
    const uint k = order_key(p[c]);
    atomicMin(keys[c], k);
    atomicMax(keys[3 + c], k);
  }
}
#else
layout(std430, binding = 1) writeonly buffer Result { vec4 result[2]; };
shared vec3 sg_min[GROUP], sg_max[GROUP];

void main() {
  const float inf = uintBitsToFloat(0x7f800000u);
  vec3 lo = vec3(inf), hi = vec3(-inf);
  for (uint i = gl_LocalInvocationIndex; i < params.count; i += GROUP) {
    lo = min(lo, positions[i].xyz);
    hi = max(hi, positions[i].xyz);
  }
  lo = subgroupMin(lo);
  hi = subgroupMax(hi);
  race_delay();
  if (subgroupElect()) {
    sg_min[gl_SubgroupID] = lo;
    sg_max[gl_SubgroupID] = hi;
  }
  barrier();
  if (gl_LocalInvocationIndex == 0) {
    race_delay();
    for (uint s = 1; s < gl_NumSubgroups; ++s) {
      lo = min(lo, sg_min[s]);
      hi = max(hi, sg_max[s]);
    }
    result[0] = vec4(lo, 0.0);
    result[1] = vec4(hi, 0.0);
  }
}
#endif
