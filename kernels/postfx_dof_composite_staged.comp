#version 460
// Depth-of-field composite for real time: dof_gather.glsl's gather and composite, each sum getting the same terms
// of non-zero weight in the same order as postfx_dof_composite.comp (so the same image), with less work per tap:
// - each workgroup, writing a 16x16 tile, stages the (16 + 2 MAX_RADIUS)^2 pixels its taps can reach in shared
//   memory, edges clamped, once: colour, CoC (clamped at -MAX_RADIUS, so a near tap's radius is -CoC) and the near
//   disc's area, and a bit for each near pixel;
// - far + focus and the near field are walked apart, each over its own window, the same for a subgroup's lanes
//   so that they read neighbouring words at each step (the far one the largest of theirs): a far tap needs no near
//   weight, a near tap no far weight (but at the centre), and where one field's window is wide the other's is often
//   narrow or empty;
// - the near walk visits every tap of its rows where the 3x3 tiles around hold many near pixels (unrolled: no loop
//   per tap, about 16% more taps than a disc), and only the near pixels' bits where they hold a few;
// - the far walk skips its window's corners beyond radius + 1, whose taps have weight 0.
// Why this shape: README.md ("The composite"), the shapes timed and what each gave.
// Bindings as postfx_dof_composite.comp's; MAX_RADIUS <= 8, so that a staged row's near bits fit one word.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#include "postfx.glsl"
#include "race_delay.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(std430, binding = 2) readonly buffer Tiles { vec4 tiles[]; };

#include "dof_gather.glsl"

#if MAX_RADIUS > 8
#error "a staged row's near bits are one 32-bit word: MAX_RADIUS <= 8"
#endif
const int kSide = 16 + 2 * MAX_RADIUS;
shared vec4 staged[kSide * kSide];     // colour in .rgb, CoC in .a, clamped at -MAX_RADIUS
shared float staged_area[kSide * kSide];  // as a near tap: its disc's area
shared uint near_bits[kSide];          // per staged row, a bit per near pixel
// At most this many near pixels in the 3x3 tiles around (the tile pass's counts): walk their bits, not every tap.
const uint kSparseNear = 64u;

int staged_index(ivec2 at, int dx, int dy) { return (at.y + dy) * kSide + at.x + dx; }

// Far + focus: a near tap's far weight is 0 but at the centre.
void add_far_tap(inout DofSums s, int index, int dx, int dy, float far_radius, bool any_near) {
  const vec4 v = staged[index];
  const bool near = any_near && v.a < 0.0;
  dof_add_far(s, v.rgb, near && (dx != 0 || dy != 0) ? 0.0 : coverage(far_radius, sqrt(float(dx * dx + dy * dy))));
}

// The near field: a far tap's near weight is 0.
void add_near_tap(inout DofSums s, int index, int dx, int dy) {
  const vec4 v = staged[index];
  const float radius = -v.a;
  dof_add_near(s, v.rgb, v.a < 0.0 ? coverage(radius, sqrt(float(dx * dx + dy * dy))) / staged_area[index] : 0.0);
}

void main() {
  const ivec2 size = ivec2(params.width, params.height);
  const ivec2 origin = ivec2(gl_WorkGroupID.xy) * 16 - MAX_RADIUS;  // of staged[0]
  if (gl_LocalInvocationIndex < kSide) near_bits[gl_LocalInvocationIndex] = 0u;
  barrier();
  race_delay();
  for (int i = int(gl_LocalInvocationIndex); i < kSide * kSide; i += 256) {
    const ivec2 q = clamp(origin + ivec2(i % kSide, i / kSide), ivec2(0), size - 1);
    const vec4 v = src[q.y * size.x + q.x];
    const float coc = circle_of_confusion(v.w);
    staged[i] = vec4(v.rgb, max(coc, -kMaxRadius));
    staged_area[i] = near_area(min(-coc, kMaxRadius));
    if (coc < 0.0) atomicOr(near_bits[i / kSide], 1u << uint(i % kSide));
  }
  barrier();
  race_delay();
  const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  const ivec2 at = p - origin;  // p in staged
  const float far_radius = clamp(staged[staged_index(at, 0, 0)].a, 0.0, kMaxRadius);
  // The 3x3 tiles around p are its workgroup's tile's: the same for every invocation.
  const vec2 near_around = dof_near_around(p, size);
  const float near_reach = near_around.x;
  const uint near_count = uint(near_around.y);
  // A pixel whose CoC the tile pass and this one round to opposite sides of 0 lies within rounding of the focus:
  // the reference lets it count as either field.
  const bool any_near = near_count > 0u;
  DofSums sums = kNoTaps;

  // Every tap of non-zero far weight lies within window + 1 of p; past that (by at least 1/34 pixel in distance,
  // far more than sqrt's error) the weights are exactly 0.
  const int window = subgroupMax(dof_far_window(far_radius));
  const int reach_squared = (window + 1) * (window + 1);
  for (int dy = -window; dy <= window; ++dy) {
    int span = window;
    while (span * span + dy * dy > reach_squared) --span;
    for (int dx = -span; dx <= span; ++dx) add_far_tap(sums, staged_index(at, dx, dy), dx, dy, far_radius, any_near);
  }

  const int near_window = dof_near_window(near_reach);  // from the tiles: the same for the whole workgroup
  if (near_count > kSparseNear) {
    for (int dy = -near_window; dy <= near_window; ++dy) {
      [[unroll]] for (int dx = -MAX_RADIUS; dx <= MAX_RADIUS; ++dx) {
        add_near_tap(sums, staged_index(at, dx, dy), dx, dy);
      }
    }
  } else if (any_near) {
    // The near pixels within the subgroup's near windows, row by row, each row's in column order: the reference's
    // order for every pixel. Those beyond a pixel's reach add weight 0, as in a window shared by a subgroup.
    const int first = max(subgroupMin(at.y) - near_window, 0), last = min(subgroupMax(at.y) + near_window, kSide - 1);
    const int left = max(subgroupMin(at.x) - near_window, 0), right = min(subgroupMax(at.x) + near_window, kSide - 1);
    const uint columns = (0xFFFFFFFFu >> uint(31 - (right - left))) << uint(left);
    for (int r = first; r <= last; ++r) {
      for (uint bits = near_bits[r] & columns; bits != 0u; bits &= bits - 1u) {
        const int c = findLSB(bits);
        add_near_tap(sums, staged_index(at, c - at.x, r - at.y), c - at.x, r - at.y);
      }
    }
  }
  dst[p.y * size.x + p.x] = dof_result(sums);
}
