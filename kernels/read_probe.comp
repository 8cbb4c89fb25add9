#version 460
// Reads params.count vec4 in a grid-stride loop (UNROLL loads in flight) and writes nothing unless the
// sum is an impossible value, so the reads cannot be optimised away. Two uses: the cold-cache flush
// (reading a scratch buffer larger than the L2 leaves the L2 full of clean lines: a write-based flush
// leaves dirty lines that the timed kernel would pay to write back) and the read-only bandwidth probe.
// Defines: GROUP, UNROLL.
layout(local_size_x = GROUP) in;
layout(push_constant) uniform Params {
  uint count;
  uint total_groups;
} params;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Sink { vec4 sink[]; };

void main() {
  const uint stride = params.total_groups * GROUP;
  uint i = gl_WorkGroupID.x * GROUP + gl_LocalInvocationIndex;
  vec4 acc = vec4(0.0);
  for (; i + (UNROLL - 1) * stride < params.count; i += UNROLL * stride) {
    vec4 v[UNROLL];
    for (uint u = 0; u < UNROLL; ++u) v[u] = src[i + u * stride];
    for (uint u = 0; u < UNROLL; ++u) acc += v[u];
  }
  for (; i < params.count; i += stride) acc += src[i];
  if (acc.x == -1.2345e-38) sink[0] = acc;  // never true for the data written (positive values)
}
