#version 460
// A 3x3 box filter (the mean of a pixel and its 8 neighbours, the image's edge repeated), as a team would write it:
// each workgroup stages its 16x16 tile and a one-pixel border in shared memory, then each invocation adds 9 of them.
#extension GL_GOOGLE_include_directive : require
#include "race_delay.glsl"  // kernels/': waits before shared memory accesses under --check --race, else nothing
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(push_constant) uniform Size { uint width, height; } p;

shared vec4 tile[18][18];

vec4 clamped(ivec2 xy) {
  xy = clamp(xy, ivec2(0), ivec2(p.width, p.height) - 1);
  return src[xy.y * p.width + xy.x];
}

void main() {
  const ivec2 corner = ivec2(gl_WorkGroupID.xy) * 16 - 1;
  // 18 x 18 values by 256 invocations: two rounds.
  race_delay();
  for (uint i = gl_LocalInvocationIndex; i < 18 * 18; i += 256) tile[i / 18][i % 18] = clamped(corner + ivec2(i % 18, i / 18));
  barrier();
  race_delay();
  const uvec2 xy = gl_GlobalInvocationID.xy;
  if (xy.x >= p.width || xy.y >= p.height) return;
  vec4 sum = vec4(0);
  for (uint dy = 0; dy < 3; ++dy)
    for (uint dx = 0; dx < 3; ++dx) sum += tile[gl_LocalInvocationID.y + dy][gl_LocalInvocationID.x + dx];
  dst[xy.y * p.width + xy.x] = sum * (1.0 / 9.0);
}
