#version 460
// Depth-of-field composite for real time: dof_gather.glsl's gather and composite, each sum getting the same terms
// of non-zero weight as postfx_dof_composite.comp's, row by row in the same order of rows, each row's in dx order
// but in the near walk at the clamp (so the same image within the reference's bound), with less work per tap:
// - each workgroup, writing a 16x16 tile, stages the (16 + 2 MAX_RADIUS)^2 pixels its taps can reach in shared
//   memory, edges clamped, once: colour, CoC (clamped at -MAX_RADIUS, so a near tap's radius is -CoC) and the
//   reciprocal of the near disc's area (0 for a pixel that is not near), and a bit for each near pixel;
// - an invocation gathers BLOCK vertically adjacent pixels: where a walk is unrolled, it reads each staged tap once
//   for all of them (their windows overlap but for BLOCK - 1 rows);
// - far + focus and the near field are walked apart, each over its own window, the same for a subgroup's lanes
//   so that they read neighbouring words at each step (the far one the largest of theirs): a far tap needs no near
//   weight, a near tap no far weight (but at the centre), and where one field's window is wide the other's is often
//   narrow or empty;
// - the widest far window (MAX_RADIUS, the far field's) and the narrowest (1, in focus) are unrolled whole, so each
//   tap's distance is a constant and there is no loop per tap; other widths loop, skipping their corners;
// - the near walk is unrolled whole where the 3x3 tiles around hold many near pixels and reach MAX_RADIUS, visits
//   every tap of its rows (unrolled) where they hold many but reach less, and only the near pixels' bits where they
//   hold a few;
// - where the whole near walk runs and every staged near pixel's radius is the clamp's (at 4K, every workgroup's),
//   a near tap's coverage is a constant of its offset, 1 within MAX_RADIUS: the taps inside every block pixel's
//   disc are added once a row, into a row sum each of them adds (the reference bounds a row's terms in any order);
//   where every staged pixel is near (most of the near field's workgroups at 4K), a copy of that walk reads no CoC.
//   The same walk for far pixels at the clamp was slower (README): the unrolled walks' code is most of what the
//   instruction cache holds, and a second large walk in use beside another costs more than it saves.
// Taps beyond MAX_RADIUS + 1 have weight 0 for every radius (coverage), and are left out of the unrolled walks.
// Why this shape: README.md ("The composite"), the shapes timed and what each gave.
// Bindings as postfx_dof_composite.comp's; MAX_RADIUS <= 8, so that a staged row's near bits fit one word.
// Define: BLOCK, pixels an invocation (the workgroup is 16 x 16 / BLOCK invocations).
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_control_flow_attributes : require
#include "postfx.glsl"
#include "race_delay.glsl"

layout(local_size_x = 16, local_size_y = 16 / BLOCK) in;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(std430, binding = 2) readonly buffer Tiles { vec4 tiles[]; };

#include "dof_gather.glsl"

#if MAX_RADIUS > 8
#error "a staged row's near bits are one 32-bit word: MAX_RADIUS <= 8"
#endif
const int kSide = 16 + 2 * MAX_RADIUS;
const int kInvocations = 16 * (16 / BLOCK);
const int kStagedPixels = kSide * kSide;
const int kStagedPerInvocation = (kStagedPixels + kInvocations - 1) / kInvocations;
shared vec4 staged[kStagedPixels];          // colour in .rgb, CoC in .a, clamped at -MAX_RADIUS
shared float staged_weight[kStagedPixels];  // as a near tap: 1 / its disc's area; 0 for a far or in-focus pixel
shared uint near_bits[kSide];               // per staged row, a bit per near pixel
shared uint near_below_clamp;               // 1: some staged near pixel's radius is under MAX_RADIUS
shared uint staged_not_near;                // 1: some staged pixel is not near
shared vec2 tiles_around;                   // dof_near_around of the workgroup's tile
// At most this many near pixels in the 3x3 tiles around (the tile pass's counts): walk their bits, not every tap.
const uint kSparseNear = 64u;

int staged_index(ivec2 at, int dx, int dy) { return (at.y + dy) * kSide + at.x + dx; }
// Whether a far walk of half-width w visits (dx, dy): in the window and within w + 1 of the centre.
bool in_far_window(int dx, int dy, int w) { return abs(dy) <= w && dx * dx + dy * dy <= (w + 1) * (w + 1); }
// Whether the whole near walk visits (dx, dy).
bool in_near_window(int dx, int dy) { return in_far_window(dx, dy, MAX_RADIUS); }

// At the clamp (a near tap's radius MAX_RADIUS) coverage depends on the offset alone: exactly 1 within MAX_RADIUS
// ("inside"), a constant between MAX_RADIUS and MAX_RADIUS + 1 (the ring), else 0.
bool inside_at_clamp(int dx, int dy) { return abs(dy) <= MAX_RADIUS && dx * dx + dy * dy <= MAX_RADIUS * MAX_RADIUS; }
bool ring_at_clamp(int dx, int dy) {
  return abs(dy) <= MAX_RADIUS && dx * dx + dy * dy > MAX_RADIUS * MAX_RADIUS &&
         dx * dx + dy * dy < (MAX_RADIUS + 1) * (MAX_RADIUS + 1);
}
float ring_weight(int dx, int dy) { return coverage(kMaxRadius, sqrt(float(dx * dx + dy * dy))); }
// A near tap's 1 / area where its radius is the clamp's: one expression, staged and used alike.
float clamp_inverse_area() { return 1.0 / near_area(kMaxRadius); }
float inverse_near_area(float coc) { return coc <= -kMaxRadius ? clamp_inverse_area() : 1.0 / near_area(-coc); }

// Adds the near sums of one row's taps, gathered apart (`row`), to a pixel's.
void add_near_row(inout DofSums s, DofSums row) {
  s.near_sum += row.near_sum;
  s.near_weight += row.near_weight;
}

// Far + focus: a near tap's far weight is 0 but at the centre.
void add_far(inout DofSums s, vec4 v, int dx, int dy, float far_radius, bool any_near) {
  const bool near = any_near && v.a < 0.0;
  dof_add_far(s, v.rgb, near && (dx != 0 || dy != 0) ? 0.0 : coverage(far_radius, sqrt(float(dx * dx + dy * dy))));
}
// The near field: coverage times the reciprocal area, which is 0 for a far tap (its colour is finite).
void add_near(inout DofSums s, vec4 v, float weight, int dx, int dy) {
  dof_add_near(s, v.rgb, coverage(-v.a, sqrt(float(dx * dx + dy * dy))) * weight);
}
void add_near_tap(inout DofSums s, int index, int dx, int dy) { add_near(s, staged[index], staged_weight[index], dx, dy); }

// The near walk where every staged near pixel's radius is the clamp's, so a tap's weight is a constant of its offset
// times the clamp's 1 / area for a near tap, 0 for another: a tap inside every block pixel's disc is added to one row
// sum shared by them, which each adds to its own sums at the row's end; the others (inside some pixels' discs, or in
// their rings) are added to each such pixel's sums directly. A row's shared taps are summed as colours times 1 or 0
// (near or not) and scaled by 1 / area once at the row's end. So a row's terms are added in another order than dx's,
// and scaled after their sum (which rounds less than the sum of scaled terms): its terms are the reference's, and the
// rows still come in order (the reference's bound holds for a row's terms in any order). `all_near`: every staged
// pixel is near (a constant at each call, so the compiler drops the tests).
void near_walk_at_clamp(inout DofSums sums[BLOCK], ivec2 at0, bool all_near) {
  const float inverse_area = clamp_inverse_area();
  [[unroll]] for (int r = -MAX_RADIUS; r <= MAX_RADIUS + BLOCK - 1; ++r) {
    vec3 row_rgb = vec3(0.0);
    float row_taps = 0.0;
    bool row_shared = false;
    [[unroll]] for (int dx = -MAX_RADIUS; dx <= MAX_RADIUS; ++dx) {
      bool all_inside = true, visited = false;
      [[unroll]] for (int b = 0; b < BLOCK; ++b) {
        all_inside = all_inside && inside_at_clamp(dx, r - b);
        visited = visited || inside_at_clamp(dx, r - b) || ring_at_clamp(dx, r - b);
      }
      if (visited) {
        const vec4 v = staged[staged_index(at0, dx, r)];
        const float near = all_near || v.a < 0.0 ? 1.0 : 0.0;
        if (all_inside) {
          row_rgb += near * v.rgb;
          row_taps += near;
          row_shared = true;
        } else {
          [[unroll]] for (int b = 0; b < BLOCK; ++b) {
            if (inside_at_clamp(dx, r - b)) dof_add_near(sums[b], v.rgb, near * inverse_area);
            else if (ring_at_clamp(dx, r - b))
              dof_add_near(sums[b], v.rgb, near * (ring_weight(dx, r - b) * inverse_area));
          }
        }
      }
    }
    if (row_shared) {
      const DofSums row = DofSums(vec3(0.0), inverse_area * row_rgb, 0.0, inverse_area * row_taps);
      [[unroll]] for (int b = 0; b < BLOCK; ++b) add_near_row(sums[b], row);
    }
  }
}

// The walks of one pixel at `at` (in staged), for the widths not unrolled.
void far_walk(inout DofSums s, ivec2 at, int window, float far_radius, bool any_near) {
  const int reach_squared = (window + 1) * (window + 1);
  for (int dy = -window; dy <= window; ++dy) {
    int span = window;
    while (span * span + dy * dy > reach_squared) --span;
    for (int dx = -span; dx <= span; ++dx) add_far(s, staged[staged_index(at, dx, dy)], dx, dy, far_radius, any_near);
  }
}
void near_rows(inout DofSums s, ivec2 at, int near_window) {
  for (int dy = -near_window; dy <= near_window; ++dy) {
    [[unroll]] for (int dx = -MAX_RADIUS; dx <= MAX_RADIUS; ++dx) add_near_tap(s, staged_index(at, dx, dy), dx, dy);
  }
}
// The near pixels within the subgroup's near windows, row by row, each row's in column order: the reference's order
// for every pixel. Those beyond a pixel's reach add weight 0, as in a window shared by a subgroup.
void near_bits_walk(inout DofSums s, ivec2 at, int near_window) {
  const int first = max(subgroupMin(at.y) - near_window, 0), last = min(subgroupMax(at.y) + near_window, kSide - 1);
  const int left = max(subgroupMin(at.x) - near_window, 0), right = min(subgroupMax(at.x) + near_window, kSide - 1);
  const uint columns = (0xFFFFFFFFu >> uint(31 - (right - left))) << uint(left);
  for (int r = first; r <= last; ++r) {
    for (uint bits = near_bits[r] & columns; bits != 0u; bits &= bits - 1u) {
      const int c = findLSB(bits);
      add_near_tap(s, staged_index(at, c - at.x, r - at.y), c - at.x, r - at.y);
    }
  }
}

void main() {
  const ivec2 size = ivec2(params.width, params.height);
  const ivec2 tile_origin = ivec2(gl_WorkGroupID.xy) * 16;  // the workgroup's 16x16 tile's first pixel
  const ivec2 origin = tile_origin - MAX_RADIUS;             // of staged[0]
  // Before the zeroing too: without it the first subgroup zeroes the near bits before any other's staging loads
  // return, so a missing barrier after the zeroing never showed under --race on an H100.
  race_delay();
  if (gl_LocalInvocationIndex < kSide) near_bits[gl_LocalInvocationIndex] = 0u;
  if (gl_LocalInvocationIndex == 0) near_below_clamp = 0u;
  if (gl_LocalInvocationIndex == 2) staged_not_near = 0u;
  // The 3x3 tiles around every pixel of the workgroup are its tile's: read once, not 9 loads an invocation (-2.7%
  // on an H100, README).
  if (gl_LocalInvocationIndex == 1) tiles_around = dof_near_around(tile_origin, size);
  barrier();
  race_delay();
  // Every load an invocation stages is issued before the first store: a loop of load, store and atomic kept one
  // load in flight at a time, and staging took about a fifth of the kernel's time (README).
  vec4 loaded[kStagedPerInvocation];
  [[unroll]] for (int k = 0; k < kStagedPerInvocation; ++k) {
    const int i = int(gl_LocalInvocationIndex) + k * kInvocations;
    const ivec2 q = clamp(origin + ivec2(i % kSide, i / kSide), ivec2(0), size - 1);
    if (i < kStagedPixels) loaded[k] = src[q.y * size.x + q.x];
  }
  bool below_clamp = false, not_near = false;
  [[unroll]] for (int k = 0; k < kStagedPerInvocation; ++k) {
    const int i = int(gl_LocalInvocationIndex) + k * kInvocations;
    if (i < kStagedPixels) {
      const float coc = circle_of_confusion(loaded[k].w);
      staged[i] = vec4(loaded[k].rgb, max(coc, -kMaxRadius));
      staged_weight[i] = coc < 0.0 ? inverse_near_area(coc) : 0.0;
      if (coc < 0.0) atomicOr(near_bits[i / kSide], 1u << uint(i % kSide));
      below_clamp = below_clamp || (coc < 0.0 && coc > -kMaxRadius);
      not_near = not_near || !(coc < 0.0);
    }
  }
  if (subgroupAny(below_clamp) && subgroupElect()) atomicOr(near_below_clamp, 1u);
  if (subgroupAny(not_near) && subgroupElect()) atomicOr(staged_not_near, 1u);
  barrier();
  race_delay();
  // The block's pixels: p0 and the BLOCK - 1 below it (those past the image's bottom are gathered, not written).
  const ivec2 p0 = tile_origin + ivec2(gl_LocalInvocationID.x, gl_LocalInvocationID.y * BLOCK);
  if (p0.x >= size.x || p0.y >= size.y) return;
  const ivec2 at0 = p0 - origin;  // p0 in staged
  float far_radius[BLOCK];
  int own_window = 0;
  [[unroll]] for (int b = 0; b < BLOCK; ++b) {
    far_radius[b] = clamp(staged[staged_index(at0, 0, b)].a, 0.0, kMaxRadius);
    own_window = max(own_window, dof_far_window(far_radius[b]));
  }
  const vec2 near_around = tiles_around;
  const uint near_count = uint(near_around.y);
  // A pixel whose CoC the tile pass and this one round to opposite sides of 0 lies within rounding of the focus:
  // the reference lets it count as either field.
  const bool any_near = near_count > 0u;
  DofSums sums[BLOCK];
  [[unroll]] for (int b = 0; b < BLOCK; ++b) sums[b] = kNoTaps;

  // Staged row r (from p0's) holds the taps of row r - b of pixel b: each is read once, then added to every pixel
  // whose walk visits it, so each pixel still adds its taps row by row, in dx order.
#define UNROLLED_WALK(W, IN_WINDOW, READ, ADD)                                 \
  [[unroll]] for (int r = -(W); r <= (W) + BLOCK - 1; ++r) {                   \
    [[unroll]] for (int dx = -(W); dx <= (W); ++dx) {                          \
      bool visited = false;                                                    \
      [[unroll]] for (int b = 0; b < BLOCK; ++b) visited = visited || IN_WINDOW; \
      if (visited) {                                                           \
        const int index = staged_index(at0, dx, r);                            \
        READ;                                                                  \
        [[unroll]] for (int b = 0; b < BLOCK; ++b) {                           \
          if (IN_WINDOW) ADD;                                                  \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

  // Every tap of non-zero far weight lies within window + 1 of its pixel; past that (by at least 1/34 pixel in
  // distance, far more than sqrt's error) the weights are exactly 0.
  const int window = subgroupMax(own_window);
  if (window == MAX_RADIUS) {
    UNROLLED_WALK(MAX_RADIUS, in_far_window(dx, r - b, MAX_RADIUS), const vec4 v = staged[index],
                  add_far(sums[b], v, dx, r - b, far_radius[b], any_near))
  } else if (window == 1) {
    UNROLLED_WALK(1, in_far_window(dx, r - b, 1), const vec4 v = staged[index],
                  add_far(sums[b], v, dx, r - b, far_radius[b], any_near))
  } else {
    [[unroll]] for (int b = 0; b < BLOCK; ++b) far_walk(sums[b], at0 + ivec2(0, b), window, far_radius[b], any_near);
  }

  const int near_window = dof_near_window(near_around.x);  // from the tiles: the same for the whole workgroup
  if (near_count > kSparseNear && near_window == MAX_RADIUS && near_below_clamp == 0u) {
    // Two copies of the walk: where every staged pixel is near (at 4K, most of the near field's workgroups) none of
    // its taps needs its CoC read or tested.
    if (staged_not_near == 0u) near_walk_at_clamp(sums, at0, true);
    else near_walk_at_clamp(sums, at0, false);
  } else if (near_count > kSparseNear && near_window == MAX_RADIUS) {
    UNROLLED_WALK(MAX_RADIUS, in_near_window(dx, r - b), const vec4 v = staged[index]; const float w = staged_weight[index],
                  add_near(sums[b], v, w, dx, r - b))
  } else if (near_count > kSparseNear) {
    [[unroll]] for (int b = 0; b < BLOCK; ++b) near_rows(sums[b], at0 + ivec2(0, b), near_window);
  } else if (any_near) {
    [[unroll]] for (int b = 0; b < BLOCK; ++b) near_bits_walk(sums[b], at0 + ivec2(0, b), near_window);
  }
  [[unroll]] for (int b = 0; b < BLOCK; ++b) {
    if (p0.y + b < size.y) dst[(p0.y + b) * size.x + p0.x] = dof_result(sums[b]);
  }
}
