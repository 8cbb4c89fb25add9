#version 460
// Reads params.count vec4 in a grid-stride loop (UNROLL loads in flight) and writes nothing unless the
// sum is an impossible value, so the reads cannot be optimised away. Two uses: the cold-cache flush
// (reading a scratch buffer larger than the L2 leaves the L2 full of clean lines: a write-based flush
// leaves dirty lines that the timed kernel would pay to write back) and the read-only bandwidth probe,
// which also reads with TILED 1: 16x16 invocations each adding 4 vec4 of a row strided by 16, over an
// image params.total_groups vec4 wide (lum_subgroup.comp's pattern, which reads faster on an H100).
// Defines: GROUP, UNROLL (not tiled), TILED.
#if TILED
layout(local_size_x = 16, local_size_y = 16) in;
#else
layout(local_size_x = GROUP) in;
#endif
layout(push_constant) uniform Params {
  uint count;
  uint total_groups;
} params;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Sink { vec4 sink[]; };

void main() {
#if TILED
  const uint width = params.total_groups;
  const uint x0 = gl_WorkGroupID.x * 64 + gl_LocalInvocationID.x, y = gl_GlobalInvocationID.y;
  vec4 acc = vec4(0.0);
  for (uint f = 0; f < 4; ++f) {
    const uint x = x0 + f * 16, i = y * width + x;
    if (x < width && i < params.count) acc += src[i];
  }
#else
  const uint stride = params.total_groups * GROUP;
  uint i = gl_WorkGroupID.x * GROUP + gl_LocalInvocationIndex;
  vec4 acc = vec4(0.0);
  for (; i + (UNROLL - 1) * stride < params.count; i += UNROLL * stride) {
    vec4 v[UNROLL];
    for (uint u = 0; u < UNROLL; ++u) v[u] = src[i + u * stride];
    for (uint u = 0; u < UNROLL; ++u) acc += v[u];
  }
  for (; i < params.count; i += stride) acc += src[i];
#endif
  if (acc.x == -1.2345e-38) sink[0] = acc;  // never true for the data written (positive values)
}
