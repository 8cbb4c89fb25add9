// Sum of one float per invocation over the whole workgroup: subgroupAdd, one partial per subgroup in
// shared memory, then subgroup 0 adds the partials (serially per lane when there are more subgroups than
// lanes: 256 threads on lavapipe's 8-wide subgroups make 32 partials). The result is valid in every
// invocation. Needs GL_KHR_shader_subgroup_arithmetic; WG_THREADS = invocations in the workgroup.
// Error: log2(subgroup size) + (ceil(subgroups / subgroup size) - 1) + log2(subgroup size) roundings.
#include "race_delay.glsl"

shared float wg_partials[WG_THREADS];  // upper bound on the subgroup count (subgroups are >= 1 wide)
shared float wg_total;

float workgroup_sum(float value) {
  const float subgroup_total = subgroupAdd(value);
  race_delay();
  if (subgroupElect()) wg_partials[gl_SubgroupID] = subgroup_total;
  barrier();
  race_delay();
  if (gl_SubgroupID == 0) {
    float lane_sum = 0.0;
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) lane_sum += wg_partials[i];
    const float total = subgroupAdd(lane_sum);
    race_delay();
    if (subgroupElect()) wg_total = total;
  }
  barrier();
  return wg_total;
}
