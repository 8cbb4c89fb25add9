#version 460
// Depth-of-field composite for real time: dof_gather.glsl's gather and composite, the same taps added in the same
// order as postfx_dof_composite.comp (so the same image), with less work per tap:
// - each workgroup, writing a 16x16 tile, stages the (16 + 2 MAX_RADIUS)^2 pixels its taps can reach in shared
//   memory, edges clamped, and computes each one's circle of confusion once there, not once per tap (up to
//   (2 MAX_RADIUS + 1)^2 times);
// - a subgroup walks one window, the largest of its pixels' (the taps that adds have weight 0, and adding 0 changes
//   nothing), so that at each step its lanes read neighbouring words of shared memory;
// - it skips the window's corners beyond radius + 1, whose taps have weight 0 (about 14% of a window of 8).
// Bindings and MAX_RADIUS as postfx_dof_composite.comp's.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "postfx.glsl"
#include "race_delay.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(std430, binding = 2) readonly buffer Tiles { vec4 tiles[]; };

#include "dof_gather.glsl"

const int kSide = 16 + 2 * MAX_RADIUS;
shared vec4 staged[kSide * kSide];  // colour in .rgb, CoC in .a

void main() {
  const ivec2 size = ivec2(params.width, params.height);
  const ivec2 origin = ivec2(gl_WorkGroupID.xy) * 16 - MAX_RADIUS;  // of staged[0]
  race_delay();
  for (int i = int(gl_LocalInvocationIndex); i < kSide * kSide; i += 256) {
    const ivec2 q = clamp(origin + ivec2(i % kSide, i / kSide), ivec2(0), size - 1);
    const vec4 v = src[q.y * size.x + q.x];
    staged[i] = vec4(v.rgb, circle_of_confusion(v.w));
  }
  barrier();
  race_delay();
  const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  const ivec2 at = p - origin;  // p in staged
  const float far_radius = clamp(staged[at.y * kSide + at.x].a, 0.0, kMaxRadius);
  const int window = subgroupMax(dof_window(far_radius, dof_near_reach(p, size)));
  // Every tap of non-zero weight lies within window + 1 of p; past that (by at least 1/34 pixel in distance, far
  // more than sqrt's error) the weights are exactly 0.
  const int reach_squared = (window + 1) * (window + 1);
  DofSums sums = kNoTaps;
  for (int dy = -window; dy <= window; ++dy) {
    int span = window;
    while (span * span + dy * dy > reach_squared) --span;
    const int row = (at.y + dy) * kSide + at.x;
    for (int dx = -span; dx <= span; ++dx) dof_add_tap(sums, staged[row + dx], dx, dy, far_radius);
  }
  dst[p.y * size.x + p.x] = dof_result(sums);
}
