#version 460
// Luminance of one tile per workgroup by a shared-memory tree, in the seeds' variants (002/003, 000
// "Reloaded"). Each invocation reads FETCH_X consecutive pixels in FETCH_Y rows (the seeds' pattern),
// adds them serially into SLOTS shared-memory slots, and the workgroup reduces GROUP_X*GROUP_Y*SLOTS
// values to the tile's sum, written to partials[group]. Sums, not averages: edge tiles are partial, and
// the harness divides the total by the pixels actually read.
// Defines: GROUP_X GROUP_Y FETCH_X FETCH_Y SLOTS, ADDRESSING (0 interleaved: index = 2*s*tid; 1 sequential:
// stride halves), TAIL (0 barrier at every step; 1 below the subgroup size, subgroup 0 finishes with
// subgroup-scope barriers; 2 the seed's literal warp-synchronous tail: a data race, the negative control).
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "luminance_common.glsl"
#include "race_delay.glsl"

layout(local_size_x = GROUP_X, local_size_y = GROUP_Y) in;
layout(std430, binding = 1) writeonly buffer Partials { float partials[]; };

const uint kThreads = GROUP_X * GROUP_Y;
const uint kElements = kThreads * SLOTS;
const uint kFetchesPerSlot = (FETCH_X * FETCH_Y) / SLOTS;
shared float sm[kElements];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint x0 = gl_WorkGroupID.x * (GROUP_X * FETCH_X) + gl_LocalInvocationID.x * FETCH_X;
  const uint y0 = gl_WorkGroupID.y * (GROUP_Y * FETCH_Y) + gl_LocalInvocationID.y * FETCH_Y;
  for (uint slot = 0; slot < SLOTS; ++slot) {
    float acc = 0.0;
    for (uint f = slot * kFetchesPerSlot; f < (slot + 1) * kFetchesPerSlot; ++f) {
      acc += luminance_at(x0 + f % FETCH_X, y0 + f / FETCH_X);
    }
    race_delay();
    sm[tid * SLOTS + slot] = acc;  // the seeds' idSharedMem = GI * 2
  }
  barrier();

#if ADDRESSING == 0
  for (uint s = 1; s < kElements; s *= 2) {
    const uint index = 2 * s * tid;
    race_delay();
    if (index < kElements) sm[index] += sm[index + s];
    barrier();
  }
#elif TAIL == 0
  for (uint s = kElements / 2; s > 0; s >>= 1) {
    race_delay();
    if (tid < s) sm[tid] += sm[tid + s];
    barrier();
  }
#elif TAIL == 1
  // Workgroup barriers while a step spans more than one subgroup ...
  uint s = kElements / 2;
  for (; s >= gl_SubgroupSize; s >>= 1) {
    race_delay();
    if (tid < s) sm[tid] += sm[tid + s];
    barrier();
  }
  // ... then subgroup 0 alone: lane l owns sm[l], and sm[l + s] was written by a lane of the same
  // subgroup, so subgroup-scope visibility and execution barriers order every access (no lockstep assumed).
  if (gl_SubgroupID == 0) {
    // The tail needs min(threads, subgroup size) live lanes; a partly filled subgroup 0 is reported as a
    // NaN (a visible failure) rather than silently dropping sm values.
    const bool valid = subgroupBallotBitCount(subgroupBallot(true)) >= min(kThreads, gl_SubgroupSize);
    const uint lane = gl_SubgroupInvocationID;
    for (; s > 0; s >>= 1) {
      race_delay();
      if (lane < s) sm[lane] += sm[lane + s];
      subgroupMemoryBarrierShared();
      subgroupBarrier();
    }
    if (lane == 0) partials[group_linear_index()] = valid ? sm[0] : uintBitsToFloat(0x7fc00000u);
  }
  return;  // subgroup 0 wrote the result: invocation 0 need not be in subgroup 0
#elif TAIL == 2
  // The seed's code: barriers down to 64 live threads (the seed also skips the +64 step; kept here so the
  // only defect left is the one under test), then AMD's 64-wide wavefront assumed to run in lockstep.
  for (uint s = kElements / 2; s >= 64; s >>= 1) {
    race_delay();
    if (tid < s) sm[tid] += sm[tid + s];
    barrier();
  }
  race_delay();
  if (tid < 64) {
    sm[tid] += sm[tid + 32];
    sm[tid] += sm[tid + 16];
    sm[tid] += sm[tid + 8];
    sm[tid] += sm[tid + 4];
    sm[tid] += sm[tid + 2];
    sm[tid] += sm[tid + 1];
  }
#else
#error unknown TAIL
#endif
  race_delay();
  if (tid == 0) partials[group_linear_index()] = sm[0];
}
