#version 460
// Bandwidth probes for the roofline (harness/run/roofline.h). WRITE_ONLY 0 copies params.count vec4 from
// src to dst (bytes read + written); WRITE_ONLY 1 writes them and reads nothing. TILED 0: a
// device-sized grid loops over the buffer with UNROLL accesses in flight (lum_grid_stride.comp's
// pattern); TILED 1: one vec4 per invocation in 16x16 tiles of an image params.total_groups vec4 wide
// (postfx_pixel.comp's pattern, which copies 8-12% faster on an H200). The benchmark takes the faster
// of the two. Defines: GROUP, UNROLL (not tiled), WRITE_ONLY, TILED.
#if TILED
layout(local_size_x = 16, local_size_y = 16) in;
#else
layout(local_size_x = GROUP) in;
#endif
layout(push_constant) uniform Params {
  uint count;
  uint total_groups;  // not tiled: the grid's groups; tiled: the image's width
} params;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };

vec4 value(uint i) {
#if WRITE_ONLY
  return vec4(float(i));
#else
  return src[i];
#endif
}

void main() {
#if TILED
  const uvec2 p = gl_GlobalInvocationID.xy;
  const uint i = p.y * params.total_groups + p.x;
  if (p.x < params.total_groups && i < params.count) dst[i] = value(i);
#else
  const uint stride = params.total_groups * GROUP;
  uint i = gl_WorkGroupID.x * GROUP + gl_LocalInvocationIndex;
  for (; i + (UNROLL - 1) * stride < params.count; i += UNROLL * stride) {
    vec4 v[UNROLL];
    for (uint u = 0; u < UNROLL; ++u) v[u] = value(i + u * stride);
    for (uint u = 0; u < UNROLL; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < params.count; i += stride) dst[i] = value(i);
#endif
}
