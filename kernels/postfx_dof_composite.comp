#version 460
// Depth-of-field composite (seed 000): far + focus, then the near field over it by its coverage, each a
// gather whose radius follows the circle of confusion. The formulas, and the order the taps are added in,
// are reference/postfx.h's (dof_coverage, dof_near_area and the comment above them).
// Input: linear RGB with depth in metres in .w. Tiles: postfx_dof_tiles.comp's output (.x = largest near
// CoC of each 16x16 tile), which bounds how far near pixels can reach. Output: RGB, alpha = near coverage.
// Define: MAX_RADIUS (CoC clamp in pixels, <= 16 so that the 3x3 tiles around a pixel hold every tap).
#extension GL_GOOGLE_include_directive : require
#include "postfx.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(std430, binding = 2) readonly buffer Tiles { vec4 tiles[]; };

const float kMaxRadius = float(MAX_RADIUS);

float coverage(float radius, float distance) { return clamp(radius - distance + 1.0, 0.0, 1.0); }
float near_area(float radius) {
  const float h = radius + 0.5;
  return 3.14159265 * h * h;
}

void main() {
  const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  const ivec2 size = ivec2(params.width, params.height);
  if (p.x >= size.x || p.y >= size.y) return;
  const float far_radius = clamp(circle_of_confusion(src[p.y * size.x + p.x].w), 0.0, kMaxRadius);

  // The largest near CoC in the 3x3 tiles around p: no near pixel farther than that can reach p.
  const ivec2 tile = p / 16, tile_count = (size + 15) / 16;
  float near_reach = 0.0;
  for (int ty = max(tile.y - 1, 0); ty <= min(tile.y + 1, tile_count.y - 1); ++ty) {
    for (int tx = max(tile.x - 1, 0); tx <= min(tile.x + 1, tile_count.x - 1); ++tx) {
      near_reach = max(near_reach, tiles[ty * tile_count.x + tx].x);
    }
  }
  // Taps with a non-zero weight lie within radius + 1 of p (coverage), the radius at most kMaxRadius.
  const int far_window = min(int(far_radius) + 1, MAX_RADIUS);
  const int near_window = near_reach > 0.0 ? min(int(min(near_reach, kMaxRadius)) + 1, MAX_RADIUS) : 0;
  const int window = max(far_window, near_window);

  vec3 far_sum = vec3(0.0), near_sum = vec3(0.0);
  float far_weight = 0.0, near_weight = 0.0;
  for (int dy = -window; dy <= window; ++dy) {
    for (int dx = -window; dx <= window; ++dx) {
      const ivec2 q = clamp(p + ivec2(dx, dy), ivec2(0), size - 1);
      const vec4 v = src[q.y * size.x + q.x];
      const float coc = circle_of_confusion(v.w);
      const float distance = sqrt(float(dx * dx + dy * dy));
      const bool near = coc < 0.0;
      const float wf = near && (dx != 0 || dy != 0) ? 0.0 : coverage(far_radius, distance);
      far_sum += wf * v.rgb;
      far_weight += wf;
      if (near) {
        const float radius = min(-coc, kMaxRadius);
        const float wn = coverage(radius, distance) / near_area(radius);
        near_sum += wn * v.rgb;
        near_weight += wn;
      }
    }
  }
  const float alpha = min(near_weight, 1.0);
  const vec3 rgb = far_sum / far_weight * (1.0 - alpha) + near_sum / max(near_weight, 1.0);
  dst[p.y * size.x + p.x] = vec4(rgb, alpha);
}
