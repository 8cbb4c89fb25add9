#version 460
// Depth-of-field composite (seed 000), every tap read from memory and its circle of confusion computed there:
// dof_gather.glsl's gather over the square of each pixel's own window.
// Input: linear RGB with depth in metres in .w. Tiles: postfx_dof_tiles.comp's output (.x = largest near
// CoC of each 16x16 tile), which bounds how far near pixels can reach. Output: RGB, alpha = near coverage.
// Define: MAX_RADIUS (CoC clamp in pixels, <= 16).
#extension GL_GOOGLE_include_directive : require
#include "postfx.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(std430, binding = 2) readonly buffer Tiles { vec4 tiles[]; };

#include "dof_gather.glsl"

void main() {
  const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  const ivec2 size = ivec2(params.width, params.height);
  if (p.x >= size.x || p.y >= size.y) return;
  const float far_radius = clamp(circle_of_confusion(src[p.y * size.x + p.x].w), 0.0, kMaxRadius);
  const int window = dof_window(far_radius, dof_near_around(p, size).x);
  DofSums sums = kNoTaps;
  for (int dy = -window; dy <= window; ++dy) {
    for (int dx = -window; dx <= window; ++dx) {
      const ivec2 q = clamp(p + ivec2(dx, dy), ivec2(0), size - 1);
      const vec4 v = src[q.y * size.x + q.x];
      dof_add_tap(sums, vec4(v.rgb, circle_of_confusion(v.w)), dx, dy, far_radius);
    }
  }
  dst[p.y * size.x + p.x] = dof_result(sums);
}
