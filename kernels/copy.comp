#version 460
// Peak-bandwidth probe: copies params.count vec4 from src to dst in a grid-stride loop with UNROLL loads in
// flight, the same access pattern as lum_grid_stride.comp. The benchmark measures it once per device and
// reports every kernel's bandwidth as a percentage of it (bytes read + written). Defines: GROUP, UNROLL.
layout(local_size_x = GROUP) in;
layout(push_constant) uniform Params {
  uint count;
  uint total_groups;
} params;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };

void main() {
  const uint stride = params.total_groups * GROUP;
  uint i = gl_WorkGroupID.x * GROUP + gl_LocalInvocationIndex;
  for (; i + (UNROLL - 1) * stride < params.count; i += UNROLL * stride) {
    vec4 v[UNROLL];
    for (uint u = 0; u < UNROLL; ++u) v[u] = src[i + u * stride];
    for (uint u = 0; u < UNROLL; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < params.count; i += stride) dst[i] = src[i];
}
