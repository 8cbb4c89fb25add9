#version 460
// One invocation adds params.count positions in order (seed 004 "dummy loop"); also the second pass of
// the two-pass kernel, over its 64 partial sums. Writes the sum (xyz) to result[0].
#extension GL_GOOGLE_include_directive : require
#include "boids_common.glsl"

layout(local_size_x = 1) in;
layout(std430, binding = 1) writeonly buffer Result { vec4 result[]; };

void main() {
  vec3 sum = vec3(0.0);
  for (uint i = 0; i < params.count; ++i) sum += positions[i].xyz;
  result[0] = vec4(sum, 0.0);
}
