// race_delay(): a wait of a varying number of clock cycles, in a race-delay build only (--check --race defines
// RACE_DELAYS; needs VK_KHR_shader_clock). Called before a kernel reads or writes shared memory: a workgroup's
// subgroups then drift apart by up to thousands of cycles, so a missing barrier lets one of them read before
// another has written, or write over what another has yet to read. Without it, subgroups keep so close in step
// on a GPU that such races hardly ever show. Each call, half the subgroups wait, from 0 to 16383 cycles, chosen
// by a hash of the workgroup, the subgroup and the clock, so every run waits differently. The whole subgroup
// waits alike: lanes that waited apart would only wait for the slowest where they join again (an H200 showed
// fewer races with per-lane waits than with none). Elsewhere it is nothing.
#ifndef RACE_DELAY_GLSL
#define RACE_DELAY_GLSL
#ifdef RACE_DELAYS
#extension GL_ARB_shader_clock : require
#extension GL_KHR_shader_subgroup_ballot : require
void race_delay() {
  const uint start = subgroupBroadcastFirst(clock2x32ARB().x);
  uint h = start ^ (gl_WorkGroupID.x * 0x9E3779B1u) ^ (gl_WorkGroupID.y * 0x85EBCA77u) ^ (gl_SubgroupID * 0xC2B2AE3Du);
  h ^= h >> 16;  // a 32-bit integer hash (Wellons' lowbias32)
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  if ((h & 1u) == 0u) return;
  const uint cycles = h >> 18;
  while (subgroupBroadcastFirst(clock2x32ARB().x) - start < cycles) {
  }
}
#else
#define race_delay()
#endif
#endif
