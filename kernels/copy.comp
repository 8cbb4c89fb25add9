#version 460
// Bandwidth probes in a grid-stride loop with UNROLL accesses in flight, the access pattern of
// lum_grid_stride.comp: with WRITE_ONLY 0 it copies params.count vec4 from src to dst (the copy peak,
// bytes read + written); with WRITE_ONLY 1 it writes them and reads nothing (the write bandwidth). The
// benchmark measures both once per device for the roofline (harness/roofline.h). Defines: GROUP, UNROLL,
// WRITE_ONLY.
layout(local_size_x = GROUP) in;
layout(push_constant) uniform Params {
  uint count;
  uint total_groups;
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
  const uint stride = params.total_groups * GROUP;
  uint i = gl_WorkGroupID.x * GROUP + gl_LocalInvocationIndex;
  for (; i + (UNROLL - 1) * stride < params.count; i += UNROLL * stride) {
    vec4 v[UNROLL];
    for (uint u = 0; u < UNROLL; ++u) v[u] = value(i + u * stride);
    for (uint u = 0; u < UNROLL; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < params.count; i += stride) dst[i] = value(i);
}
