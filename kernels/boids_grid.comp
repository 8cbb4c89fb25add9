#version 460
// The positions' sums (MINMAX 0) or per-component min and max (MINMAX 1) with every SM busy, in one dispatch.
// A grid sized from the device (params.slices workgroups) strides over the positions, UNROLL 16-byte loads in flight
// per invocation; each workgroup reduces with subgroup operations and writes its partial (the sum, or the min then
// the max: two vec4) to partials[group]. The last workgroup to finish (an atomic counter, no spinning) reduces the
// partials as one workgroup would in a second pass, writes the answer to result[0] (the sum, or the min; the max to
// result[1]) and resets the counter for the next dispatch. One dispatch where two took 2-5 us more (H200: 21.3 ->
// 16.7 us at 1,048,576 positions, 131.5 -> 129.5 us at 33,554,432). Defines: GROUP UNROLL MINMAX.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "boids_common.glsl"
#include "race_delay.glsl"

layout(local_size_x = GROUP) in;
layout(std430, binding = 1) writeonly buffer Result { vec4 result[]; };
// coherent: the last workgroup reads the other workgroups' partials in the same dispatch.
layout(std430, binding = 2) coherent buffer Partials { vec4 partials[]; };
layout(std430, binding = 3) coherent buffer Counter { uint groups_done; };

shared bool is_last_group;

#if MINMAX
shared vec3 sg_min[GROUP], sg_max[GROUP];

// The workgroup's min and max, valid in invocation 0.
void workgroup_min_max(inout vec3 lo, inout vec3 hi) {
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
  }
}
#else
#define WG_THREADS GROUP
#include "workgroup_sum.glsl"
#endif

void main() {
#if MINMAX
  const float inf = uintBitsToFloat(0x7f800000u);
  vec3 lo = vec3(inf), hi = vec3(-inf);
#define TAKE(i) (lo = min(lo, positions[i].xyz), hi = max(hi, positions[i].xyz))
#else
  vec3 sum = vec3(0.0);
#define TAKE(i) sum += positions[i].xyz
#endif
  const uint stride = params.slices * GROUP;
  uint i = gl_WorkGroupID.x * GROUP + gl_LocalInvocationIndex;
  // Full rounds: UNROLL independent loads, then taken in order.
  for (; i + (UNROLL - 1) * stride < params.count; i += UNROLL * stride) {
    vec4 v[UNROLL];
    for (uint u = 0; u < UNROLL; ++u) v[u] = positions[i + u * stride];
#if MINMAX
    for (uint u = 0; u < UNROLL; ++u) lo = min(lo, v[u].xyz), hi = max(hi, v[u].xyz);
#else
    for (uint u = 0; u < UNROLL; ++u) sum += v[u].xyz;
#endif
  }
  for (; i < params.count; i += stride) TAKE(i);

#if MINMAX
  workgroup_min_max(lo, hi);
  if (gl_LocalInvocationIndex == 0) {
    partials[2 * gl_WorkGroupID.x] = vec4(lo, 0.0);
    partials[2 * gl_WorkGroupID.x + 1] = vec4(hi, 0.0);
  }
#else
  const vec3 group_sum = vec3(workgroup_sum(sum.x), workgroup_sum(sum.y), workgroup_sum(sum.z));
  if (gl_LocalInvocationIndex == 0) partials[gl_WorkGroupID.x] = vec4(group_sum, 0.0);
#endif
  race_delay();
  if (gl_LocalInvocationIndex == 0) {
    memoryBarrierBuffer();  // the partial is visible device-wide before the counter says so
    is_last_group = atomicAdd(groups_done, 1u) == params.slices - 1;
  }
  barrier();
  race_delay();
  if (!is_last_group) return;
  memoryBarrierBuffer();

#if MINMAX
  lo = vec3(inf), hi = vec3(-inf);
  // Partial g is two vec4: its min at 2g, its max at 2g + 1.
  for (uint g = gl_LocalInvocationIndex; g < params.slices; g += GROUP) {
    lo = min(lo, partials[2 * g].xyz);
    hi = max(hi, partials[2 * g + 1].xyz);
  }
  workgroup_min_max(lo, hi);
  if (gl_LocalInvocationIndex == 0) {
    result[0] = vec4(lo, 0.0);
    result[1] = vec4(hi, 0.0);
    groups_done = 0;
  }
#else
  sum = vec3(0.0);
  for (uint g = gl_LocalInvocationIndex; g < params.slices; g += GROUP) sum += partials[g].xyz;
  const vec3 total = vec3(workgroup_sum(sum.x), workgroup_sum(sum.y), workgroup_sum(sum.z));
  if (gl_LocalInvocationIndex == 0) {
    result[0] = vec4(total, 0.0);
    groups_done = 0;
  }
#endif
}
