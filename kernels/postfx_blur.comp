#version 460
// One pass of a separable Gaussian blur (the pipeline's bloom and depth-of-field building block): each
// output pixel is sum_{i=-RADIUS..RADIUS} w[i + RADIUS] * src(pixel + i along DIRECTION), edges clamped,
// taps added in that order. SHARED 0 reads every tap from memory; SHARED 1 first stages the workgroup's
// pixels and their apron in shared memory (the seed's suggestion). Defines: DIRECTION (0 x, 1 y), SHARED,
// RADIUS. Workgroups: 256x1 for x, 16x16 for y.
layout(push_constant) uniform Params {
  uint width;
  uint height;
} params;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(std430, binding = 2) readonly buffer Weights { float w[]; };

#if DIRECTION == 0
#define GX 256
#define GY 1
#else
#define GX 16
#define GY 16
#endif
layout(local_size_x = GX, local_size_y = GY) in;

vec4 fetch(int x, int y) {
  x = clamp(x, 0, int(params.width) - 1);
  y = clamp(y, 0, int(params.height) - 1);
  return src[uint(y) * params.width + uint(x)];
}

#if SHARED
#if DIRECTION == 0
shared vec4 staged[GX + 2 * RADIUS];
#else
shared vec4 staged[GY + 2 * RADIUS][GX];
#endif
#endif

void main() {
  const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  const ivec2 l = ivec2(gl_LocalInvocationID.xy);
#if SHARED
  // Stage, then synchronise: every invocation reaches the barrier, in the image or not.
#if DIRECTION == 0
  const int x0 = int(gl_WorkGroupID.x) * GX - RADIUS;
  for (int j = l.x; j < GX + 2 * RADIUS; j += GX) staged[j] = fetch(x0 + j, p.y);
#else
  const int y0 = int(gl_WorkGroupID.y) * GY - RADIUS;
  for (int j = l.y; j < GY + 2 * RADIUS; j += GY) staged[j][l.x] = fetch(p.x, y0 + j);
#endif
  barrier();
#endif
  if (p.x >= int(params.width) || p.y >= int(params.height)) return;
  vec4 acc = vec4(0.0);
  for (int i = -RADIUS; i <= RADIUS; ++i) {
#if SHARED && DIRECTION == 0
    const vec4 v = staged[l.x + RADIUS + i];
#elif SHARED
    const vec4 v = staged[l.y + RADIUS + i][l.x];
#elif DIRECTION == 0
    const vec4 v = fetch(p.x + i, p.y);
#else
    const vec4 v = fetch(p.x, p.y + i);
#endif
    acc += w[i + RADIUS] * v;
  }
  dst[uint(p.y) * params.width + uint(p.x)] = acc;
}
