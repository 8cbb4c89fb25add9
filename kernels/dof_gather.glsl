// The depth-of-field gather and composite of one pixel (seed 000): far + focus, then the near field over it by
// its coverage, each a gather whose radius follows the circle of confusion. The formulas, and the order the taps
// are added in (rows of dy, each in dx order), are reference/postfx.h's (dof_coverage, dof_near_area and the
// comment above them). Shared by the composite kernels, which differ in where a tap comes from and which taps of
// weight 0 they visit; each declares the Tiles buffer `tiles` (postfx_dof_tiles.comp's output) before including it.
// Needs postfx.glsl and MAX_RADIUS (CoC clamp in pixels, <= 16 so that the 3x3 tiles around a pixel hold every tap).
#ifndef DOF_GATHER_GLSL
#define DOF_GATHER_GLSL

const float kMaxRadius = float(MAX_RADIUS);

float coverage(float radius, float distance) { return clamp(radius - distance + 1.0, 0.0, 1.0); }
float near_area(float radius) {
  const float h = radius + 0.5;
  return 3.14159265 * h * h;
}

// The 3x3 tiles around p: .x their largest near CoC (no near pixel farther than that can reach p; 0: none can),
// .y how many near pixels they hold.
vec2 dof_near_around(ivec2 p, ivec2 size) {
  const ivec2 tile = p / 16, tile_count = (size + 15) / 16;
  vec2 near = vec2(0.0);
  for (int ty = max(tile.y - 1, 0); ty <= min(tile.y + 1, tile_count.y - 1); ++ty) {
    for (int tx = max(tile.x - 1, 0); tx <= min(tile.x + 1, tile_count.x - 1); ++tx) {
      const vec4 t = tiles[ty * tile_count.x + tx];
      near = vec2(max(near.x, t.x), near.y + t.z);
    }
  }
  return near;
}

// The square windows (half-widths) that hold every tap of non-zero weight for a pixel: far + focus, its own far
// radius; the near field, the reach of the nearest near pixel around it (0: none). Taps with a non-zero weight lie
// within radius + 1 of it (coverage).
int dof_far_window(float far_radius) { return min(int(far_radius) + 1, MAX_RADIUS); }
int dof_near_window(float near_reach) {
  return near_reach > 0.0 ? min(int(min(near_reach, kMaxRadius)) + 1, MAX_RADIUS) : 0;
}
int dof_window(float far_radius, float near_reach) {
  return max(dof_far_window(far_radius), dof_near_window(near_reach));
}

// The four sums of a pixel's gather, its taps added one by one in the reference's order (rows of dy, each in dx
// order). A tap of weight exactly 0 for both fields may be added or left out: adding 0 changes no sum.
struct DofSums {
  vec3 far_sum, near_sum;
  float far_weight, near_weight;
};
const DofSums kNoTaps = DofSums(vec3(0.0), vec3(0.0), 0.0, 0.0);

void dof_add_far(inout DofSums s, vec3 rgb, float wf) {
  s.far_sum += wf * rgb;
  s.far_weight += wf;
}
void dof_add_near(inout DofSums s, vec3 rgb, float wn) {
  s.near_sum += wn * rgb;
  s.near_weight += wn;
}

// Tap v (colour in .rgb, CoC in .a) at offset (dx, dy) from a pixel whose far radius is far_radius.
void dof_add_tap(inout DofSums s, vec4 v, int dx, int dy, float far_radius) {
  const float coc = v.a;
  const float distance = sqrt(float(dx * dx + dy * dy));
  const bool near = coc < 0.0;
  dof_add_far(s, v.rgb, near && (dx != 0 || dy != 0) ? 0.0 : coverage(far_radius, distance));
  if (near) {
    const float radius = min(-coc, kMaxRadius);
    dof_add_near(s, v.rgb, coverage(radius, distance) / near_area(radius));
  }
}

// RGB, alpha = near coverage.
vec4 dof_result(DofSums s) {
  const float alpha = min(s.near_weight, 1.0);
  const vec3 rgb = s.far_sum / s.far_weight * (1.0 - alpha) + s.near_sum / max(s.near_weight, 1.0);
  return vec4(rgb, alpha);
}

#endif
