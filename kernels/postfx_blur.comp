#version 460
#extension GL_EXT_control_flow_attributes : require
// One pass of a separable Gaussian blur (the pipeline's bloom and depth-of-field building block): each
// output pixel is sum_{i=-RADIUS..RADIUS} w[i + RADIUS] * src(pixel + i along DIRECTION), edges clamped,
// taps added in that order. Defines: DIRECTION (0 x, 1 y), SHARED, RADIUS, and TILE_X x TILE_Y, the pixels
// one workgroup writes (the harness sizes the dispatch from the same defines).
// SHARED 0 (naive) reads every tap from memory, one output per invocation.
// SHARED 1 stages the workgroup's tile and apron in shared memory, then each invocation blurs K consecutive
// pixels along DIRECTION from one pass over its K + 2 * RADIUS window: (K + 2R) / K shared loads per output
// instead of 2R + 1, which is what bounds the naive kernel (L1 / shared-memory bandwidth, not DRAM).
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
#define K 8  // outputs per invocation: (8 + 32) / 8 = 5 shared vec4 loads per output, 8 vec4 accumulators
#if DIRECTION == 0
#define GX (TILE_X / K)
#define GY TILE_Y
#define SPAN (TILE_X + 2 * RADIUS)  // staged pixels per row
#else
#define GX TILE_X
#define GY (TILE_Y / K)
#define SPAN (TILE_Y + 2 * RADIUS)  // staged pixels per column
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
// Row l.y of the tile, pixel j at PAD(j): one spare vec4 every K. Invocation l.x reads its window from
// element l.x * K, stored at l.x * (K + 1); K + 1 odd puts the 8 lanes of a quarter-warp (one phase of a
// 128-bit shared load) on 8 distinct 4-bank groups, where an unpadded stride of K vec4 hits one group 8 times.
#define PAD(j) ((j) + (j) / K)
shared vec4 staged[GY][PAD(SPAN - 1) + 1];
#define WINDOW(e) staged[l.y][l.x * (K + 1) + (e) + (e) / K]
#else
// Column l.x, row j of the tile: a quarter-warp (8 consecutive l.x, as GX = 8) reads one 128-byte row.
shared vec4 staged[SPAN][GX];
#define WINDOW(e) staged[l.y * K + (e)][l.x]
#endif

void main() {
  const ivec2 l = ivec2(gl_LocalInvocationID.xy);
  const ivec2 tile = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_X, TILE_Y);
#if DIRECTION == 0
  const ivec2 first = ivec2(tile.x + l.x * K, tile.y + l.y);  // this invocation's first output
#define LANE l.x
#define STEP GX
#define SOURCE(j) fetch(tile.x - RADIUS + (j), first.y)
#define STAGED(j) staged[l.y][PAD(j)]
#else
  const ivec2 first = ivec2(tile.x + l.x, tile.y + l.y * K);
#define LANE l.y
#define STEP GY
#define SOURCE(j) fetch(first.x, tile.y - RADIUS + (j))
#define STAGED(j) staged[j][l.x]
#endif
  // Stage, then synchronise: every invocation reaches every barrier, in the image or not (fetch clamps, so
  // the loads past SPAN are in bounds too). All loads go out before the first store: a load-store loop
  // waits out the memory latency once per element, which left the passes latency-bound.
  vec4 v[(SPAN + STEP - 1) / STEP];
  [[unroll]] for (int n = 0; n < v.length(); ++n) v[n] = SOURCE(LANE + n * STEP);
  [[unroll]] for (int n = 0; n < v.length(); ++n) {
    if (LANE + n * STEP < SPAN) STAGED(LANE + n * STEP) = v[n];
  }
  barrier();

  vec4 acc[K];
  [[unroll]] for (int k = 0; k < K; ++k) acc[k] = vec4(0.0);
  if (first.x < int(params.width) && first.y < int(params.height)) {
    float wt[2 * RADIUS + 1];
    [[unroll]] for (int i = 0; i <= 2 * RADIUS; ++i) wt[i] = w[i];
    // Window element e is tap i = e - k - RADIUS of output k. With e outer, each accumulator still adds its
    // taps in ascending i from 0, exactly as the naive kernel and the CPU reference do.
    [[unroll]] for (int e = 0; e < K + 2 * RADIUS; ++e) {
      const vec4 pix = WINDOW(e);
      [[unroll]] for (int k = 0; k < K; ++k) {
        if (e - k >= 0 && e - k <= 2 * RADIUS) acc[k] += wt[e - k] * pix;
      }
    }
  }

#if DIRECTION == 0
  // An invocation's K outputs are 16 * K bytes apart from its neighbours': stored directly, each warp store
  // would touch 32 cache lines. Transpose through the (now free) staging row so stores are coalesced.
  barrier();  // every window read before the row is overwritten
  [[unroll]] for (int k = 0; k < K; ++k) WINDOW(k) = acc[k];  // = staged[l.y][PAD(l.x * K + k)]
  barrier();
  if (first.y >= int(params.height)) return;
  [[unroll]] for (int m = 0; m < K; ++m) {
    const int j = l.x + m * GX, x = tile.x + j;
    if (x < int(params.width)) dst[uint(first.y) * params.width + uint(x)] = staged[l.y][PAD(j)];
  }
#else
  // A warp's lanes span 8 columns of 4 row groups: each store writes 4 whole 128-byte row segments.
  if (first.x >= int(params.width)) return;
  [[unroll]] for (int k = 0; k < K; ++k) {
    const int y = first.y + k;
    if (y < int(params.height)) dst[uint(y) * params.width + uint(first.x)] = acc[k];
  }
#endif
}
#endif
