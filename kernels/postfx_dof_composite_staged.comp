#version 460
// Depth-of-field composite for real time: dof_gather.glsl's gather and composite, each of its four sums given the
// same terms in the same order as postfx_dof_composite.comp's (so the same image), less the terms of weight 0:
// - each workgroup, writing a 16x16 tile, stages the (16 + 2 MAX_RADIUS)^2 pixels its taps can reach in shared
//   memory, edges clamped, with each one's circle of confusion computed once there, not once per tap, and a word a
//   row with a bit for each near pixel;
// - far + focus and the near field are two walks: the far one over the pixel's own far window (one tap around an
//   in-focus pixel), the near one over only the near pixels of the window its tiles' near CoC reaches, found from
//   the rows' bits. Where the image is in focus or far, the near walk visits a few pixels, not the window's 289;
// - the far walk is a subgroup's, over the largest window of its pixels (the taps that adds have weight 0), so that
//   at each step its lanes read neighbouring words of shared memory, the window's corners beyond radius + 1 skipped.
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
#if MAX_RADIUS > 8
#error "a staged row's near pixels are one word's bits: 16 + 2 MAX_RADIUS must be at most 32"
#endif
shared vec4 staged[kSide * kSide];  // colour in .rgb, CoC in .a
shared uint near_bits[kSide];       // bit x of word y: staged pixel (x, y) is near (CoC < 0)

// The span of row dy of a window whose taps beyond reach_squared (in squared distance) have weight 0.
int row_span(int window, int dy, int reach_squared) {
  int span = window;
  while (span * span + dy * dy > reach_squared) --span;
  return span;
}

void main() {
  const ivec2 size = ivec2(params.width, params.height);
  const ivec2 origin = ivec2(gl_WorkGroupID.xy) * 16 - MAX_RADIUS;  // of staged[0]
  race_delay();
  if (gl_LocalInvocationIndex < kSide) near_bits[gl_LocalInvocationIndex] = 0u;
  barrier();
  race_delay();
  for (int i = int(gl_LocalInvocationIndex); i < kSide * kSide; i += 256) {
    const ivec2 q = clamp(origin + ivec2(i % kSide, i / kSide), ivec2(0), size - 1);
    const vec4 v = src[q.y * size.x + q.x];
    const float coc = circle_of_confusion(v.w);
    staged[i] = vec4(v.rgb, coc);
    if (coc < 0.0) atomicOr(near_bits[i / kSide], 1u << (i % kSide));
  }
  barrier();
  race_delay();
  const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  const ivec2 at = p - origin;  // p in staged
  const float far_radius = clamp(staged[at.y * kSide + at.x].a, 0.0, kMaxRadius);
  DofSums sums = kNoTaps;

  // Far + focus: a near tap's far weight is 0 but at the centre. Taps of non-zero weight lie within window + 1 of
  // p; past that (by at least 1/34 pixel in distance, far more than sqrt's error) the weights are exactly 0.
  const int far_window = subgroupMax(dof_far_window(far_radius));
  const int far_reach_squared = (far_window + 1) * (far_window + 1);
  for (int dy = -far_window; dy <= far_window; ++dy) {
    const int span = row_span(far_window, dy, far_reach_squared);
    const int row = (at.y + dy) * kSide + at.x;
    for (int dx = -span; dx <= span; ++dx) {
      const vec4 v = staged[row + dx];
      if (v.a >= 0.0 || (dx == 0 && dy == 0)) {
        dof_add_far(sums, v.rgb, coverage(far_radius, sqrt(float(dx * dx + dy * dy))));
      }
    }
  }

  // The near field: the near pixels of the pixel's own near window, in the same order (rows of dy, each in dx
  // order), found as the set bits of each row's word.
  const int near_window = dof_near_window(dof_near_reach(p, size));
  const int near_reach_squared = (near_window + 1) * (near_window + 1);
  for (int dy = -near_window; dy <= near_window; ++dy) {
    const int span = row_span(near_window, dy, near_reach_squared);
    // bit b: the tap at dx = b - span
    uint taps = (near_bits[at.y + dy] >> (at.x - span)) & ((2u << (2 * span)) - 1u);
    const int row = (at.y + dy) * kSide + at.x - span;
    while (taps != 0u) {
      const int b = findLSB(taps);
      taps &= taps - 1u;
      const int dx = b - span;
      const vec4 v = staged[row + b];
      const float radius = min(-v.a, kMaxRadius);
      dof_add_near(sums, v.rgb, coverage(radius, sqrt(float(dx * dx + dy * dy))) / near_area(radius));
    }
  }
  dst[p.y * size.x + p.x] = dof_result(sums);
}
