#version 460
// First pass of seed 004's two-pass average: SLICES invocations each add a share of the positions and
// write their sum to partials[invocation]. TRANSPOSED 0: invocation t reads t, t + SLICES, ... (the seed's
// "row" pattern: neighbours read neighbours); 1: invocation t reads one contiguous slice.
// Defines: SLICES TRANSPOSED.
#extension GL_GOOGLE_include_directive : require
#include "boids_common.glsl"

layout(local_size_x = SLICES) in;
layout(std430, binding = 1) writeonly buffer Partials { vec4 partials[]; };

void main() {
  const uint t = gl_LocalInvocationIndex;
  vec3 sum = vec3(0.0);
#if TRANSPOSED
  const uint slice = (params.count + SLICES - 1) / SLICES;
  const uint end = min(params.count, (t + 1) * slice);
  for (uint i = t * slice; i < end; ++i) sum += positions[i].xyz;
#else
  for (uint i = t; i < params.count; i += SLICES) sum += positions[i].xyz;
#endif
  partials[t] = vec4(sum, 0.0);
}
