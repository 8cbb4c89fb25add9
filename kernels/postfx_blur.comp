#version 460
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
// One pass of a separable Gaussian blur (the pipeline's bloom and depth-of-field building block): each
// output pixel is sum_{i=-RADIUS..RADIUS} w[i + RADIUS] * src(pixel + i along DIRECTION), edges clamped,
// taps added in that order. Defines: DIRECTION (0 x, 1 y), SHARED, RADIUS, TILE_X x TILE_Y (the pixels one
// workgroup writes; the harness sizes the dispatch from them) and, for SHARED 1, STEPS, K and WEIGHT_BITS.
// SHARED 0 (naive) reads every tap from memory, one output per invocation: bound by L1 load bandwidth.
// SHARED 1 stages rows (x) or columns (y) in shared memory and register-blocks: each invocation blurs K
// consecutive pixels along DIRECTION in one sweep over its K + 2 * RADIUS window, (K + 2R) / K shared loads
// per output instead of 2R + 1. A workgroup does its tile as STEPS sub-tiles down the image, loading the next
// while it blurs the current one, since staging alone left each workgroup waiting on memory.
#include "race_delay.glsl"

layout(push_constant) uniform Params {
  uint width;
  uint height;
} params;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(std430, binding = 2) readonly buffer Weights { float w[]; };

#if !SHARED
#define GX TILE_X
#define GY TILE_Y
#else
// K outputs per invocation: (K + 2 RADIUS) / K shared vec4 loads per output, K vec4 accumulators.
#if !defined(K) || !defined(WEIGHT_BITS) || !defined(STEPS)
#error "SHARED 1 needs K, WEIGHT_BITS and STEPS"
#endif
#if DIRECTION == 0
#define GX (TILE_X / K)  // a sub-tile: GY rows of TILE_X pixels
#define GY (TILE_Y / STEPS)
#define SPAN (TILE_X + 2 * RADIUS)  // staged pixels per row
#else
#define GX TILE_X  // a sub-tile: GY * K rows of TILE_X columns
#define GY (TILE_Y / (K * STEPS))
#define SPAN (GY * K + 2 * RADIUS)  // staged rows
#endif
#endif
layout(local_size_x = GX, local_size_y = GY) in;

vec4 fetch(int x, int y) {
  x = clamp(x, 0, int(params.width) - 1);
  y = clamp(y, 0, int(params.height) - 1);
  return src[uint(y) * params.width + uint(x)];
}

#if !SHARED
void main() {
  const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= int(params.width) || p.y >= int(params.height)) return;
  vec4 acc = vec4(0.0);
  for (int i = -RADIUS; i <= RADIUS; ++i) {
#if DIRECTION == 0
    const vec4 v = fetch(p.x + i, p.y);
#else
    const vec4 v = fetch(p.x, p.y + i);
#endif
    acc += w[i + RADIUS] * v;
  }
  dst[uint(p.y) * params.width + uint(p.x)] = acc;
}
#else
#if DIRECTION == 0
// Row l.y, pixel j at PAD(j): one spare vec4 every K. Invocation l.x's window starts at element l.x * K,
// stored at l.x * (K + 1); K + 1 odd puts the 8 lanes of a quarter-warp (one phase of a 128-bit shared
// access) on 8 distinct 4-bank groups, where an unpadded stride of K vec4 puts all 8 on one.
#define PAD(j) ((j) + (j) / K)
shared vec4 staged[GY][PAD(SPAN - 1) + 1];
shared vec4 blurred[GY][PAD(TILE_X - 1) + 1];  // the outputs, transposed for coalesced stores
#define WINDOW(e) staged[l.y][l.x * (K + 1) + (e) + (e) / K]
#define ORIGIN(s) ivec2(tile.x, tile.y + (s) * GY)  // sub-tile s's first pixel
#define FIRST(o) ivec2(o.x + l.x * K, o.y + l.y)    // this invocation's first output in it
#define LANE l.x
#define STEP GX
#define SOURCE(o, j) fetch(o.x - RADIUS + (j), o.y + l.y)  // staged element j of the sub-tile at o
#define STAGED(j) staged[l.y][PAD(j)]
#else
// Column l.x, row j: a quarter-warp (8 consecutive l.x, as GX = 8) reads one 128-byte row, no conflicts.
shared vec4 staged[SPAN][GX];
#define WINDOW(e) staged[l.y * K + (e)][l.x]
#define ORIGIN(s) ivec2(tile.x, tile.y + (s) * GY * K)
#define FIRST(o) ivec2(o.x + l.x, o.y + l.y * K)
#define LANE l.y
#define STEP GY
#define SOURCE(o, j) fetch(o.x + l.x, o.y - RADIUS + (j))
#define STAGED(j) staged[j][l.x]
#endif

void main() {
  const ivec2 l = ivec2(gl_LocalInvocationID.xy);
  const ivec2 tile = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_X, TILE_Y);
  // The weights' bits as constants (the catalog writes blur_weights' own, the buffer's): each multiply takes its
  // weight as an operand, not one of 2 RADIUS + 1 registers held over the whole pass.
  const uint wt_bits[2 * RADIUS + 1] = uint[](WEIGHT_BITS);
#define WT(i) uintBitsToFloat(wt_bits[i])
  // An invocation's share of a sub-tile's staging loads, all issued before any is used (fetch clamps, so
  // those past the image or past SPAN are in bounds too).
  vec4 v[(SPAN + STEP - 1) / STEP];
  [[unroll]] for (int n = 0; n < v.length(); ++n) v[n] = SOURCE(ORIGIN(0), LANE + n * STEP);
  // Every condition on the way to a barrier is uniform in the workgroup. Not unrolled: left to itself, the
  // NVIDIA compiler unrolled STEPS 4 into a pass over twice as slow (H200).
  [[dont_unroll]] for (int s = 0; s < STEPS && ORIGIN(s).y < int(params.height); ++s) {
    const ivec2 o = ORIGIN(s), first = FIRST(o);
    race_delay();
    if (s > 0) barrier();  // sub-tile s - 1's shared reads are done
    [[unroll]] for (int n = 0; n < v.length(); ++n) {
      if (LANE + n * STEP < SPAN) STAGED(LANE + n * STEP) = v[n];
    }
    barrier();
    if (s + 1 < STEPS && ORIGIN(s + 1).y < int(params.height)) {
      [[unroll]] for (int n = 0; n < v.length(); ++n) v[n] = SOURCE(ORIGIN(s + 1), LANE + n * STEP);
    }

    vec4 acc[K];
    [[unroll]] for (int k = 0; k < K; ++k) acc[k] = vec4(0.0);
    race_delay();
    if (first.x < int(params.width) && first.y < int(params.height)) {
      // Window element e is tap i = e - k - RADIUS of output k. With e outer, each accumulator still adds
      // its taps in ascending i from 0, exactly as the naive kernel and the CPU reference do.
      [[unroll]] for (int e = 0; e < K + 2 * RADIUS; ++e) {
        const vec4 pix = WINDOW(e);
        [[unroll]] for (int k = 0; k < K; ++k) {
          if (e - k >= 0 && e - k <= 2 * RADIUS) acc[k] += WT(e - k) * pix;
        }
      }
    }

#if DIRECTION == 0
    // Neighbouring invocations' outputs are 16 * K bytes apart: stored directly, each warp store would
    // touch 32 cache lines. Through shared memory (padded as staged is), 4 or 5.
    race_delay();
    [[unroll]] for (int k = 0; k < K; ++k) blurred[l.y][l.x * (K + 1) + k] = acc[k];  // PAD(l.x * K + k)
    barrier();
    race_delay();
    if (first.y < int(params.height)) {
      [[unroll]] for (int m = 0; m < K; ++m) {
        const int j = l.x + m * GX;
        if (o.x + j < int(params.width)) dst[uint(first.y) * params.width + uint(o.x + j)] = blurred[l.y][PAD(j)];
      }
    }
#else
    // A warp's lanes span 8 columns of 4 row groups: each store writes 4 whole 128-byte row segments.
    if (first.x < int(params.width)) {
      [[unroll]] for (int k = 0; k < K; ++k) {
        if (first.y + k < int(params.height)) dst[uint(first.y + k) * params.width + uint(first.x)] = acc[k];
      }
    }
#endif
  }
}
#endif
