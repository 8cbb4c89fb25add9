#version 460
// Single-pass average in one workgroup (seed 004 "groupshared and thread sync"): each of GROUP
// invocations adds a contiguous slice; SUBGROUP 0: the sums go to shared memory and invocation 0 adds them
// in order (the seed's); SUBGROUP 1: workgroup_sum (subgroupAdd) per component. Writes result[0].
// Defines: GROUP SUBGROUP.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "boids_common.glsl"
#include "race_delay.glsl"

layout(local_size_x = GROUP) in;
layout(std430, binding = 1) writeonly buffer Result { vec4 result[]; };

#if SUBGROUP
#define WG_THREADS GROUP
#include "workgroup_sum.glsl"
#else
shared vec3 slice_sums[GROUP];
#endif

void main() {
  const uint t = gl_LocalInvocationIndex;
  const uint slice = (params.count + GROUP - 1) / GROUP;
  const uint end = min(params.count, (t + 1) * slice);
  vec3 sum = vec3(0.0);
  for (uint i = t * slice; i < end; ++i) sum += positions[i].xyz;
#if SUBGROUP
  const vec3 total = vec3(workgroup_sum(sum.x), workgroup_sum(sum.y), workgroup_sum(sum.z));
  if (t == 0) result[0] = vec4(total, 0.0);
#else
  race_delay();
  slice_sums[t] = sum;
  barrier();
  race_delay();
  if (t == 0) {
    vec3 total = vec3(0.0);
    for (uint i = 0; i < GROUP; ++i) total += slice_sums[i];
    result[0] = vec4(total, 0.0);
  }
#endif
}
