#version 460
// Depth-of-field tile pass (seed 000): per 16x16 tile, from the depth in alpha (.w), the largest near circle
// of confusion (its size, red in the seed's image) and the smallest far one (green), with the counts of
// near and far pixels: vec4(max near, min far (0 when none), near count, far count). In-focus pixels
// (CoC exactly 0) count as neither.
#extension GL_GOOGLE_include_directive : require
#include "postfx.glsl"
#include "race_delay.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer Depth { vec4 depth[]; };
layout(std430, binding = 1) writeonly buffer Tiles { vec4 tiles[]; };

shared float near_max[256], far_min[256];
shared uint near_count[256], far_count[256];

void main() {
  const uvec2 p = gl_GlobalInvocationID.xy;
  const uint t = gl_LocalInvocationIndex;
  const float inf = uintBitsToFloat(0x7f800000u);
  race_delay();
  near_max[t] = 0.0;
  far_min[t] = inf;
  near_count[t] = 0u;
  far_count[t] = 0u;
  if (p.x < params.width && p.y < params.height) {
    const float coc = circle_of_confusion(depth[p.y * params.width + p.x].w);
    if (coc < 0.0) {
      near_max[t] = -coc;
      near_count[t] = 1u;
    } else if (coc > 0.0) {
      far_min[t] = coc;
      far_count[t] = 1u;
    }
  }
  barrier();
  for (uint s = 128; s > 0; s >>= 1) {  // exact operations: the order does not matter
    race_delay();
    if (t < s) {
      near_max[t] = max(near_max[t], near_max[t + s]);
      far_min[t] = min(far_min[t], far_min[t + s]);
      near_count[t] += near_count[t + s];
      far_count[t] += far_count[t + s];
    }
    barrier();
  }
  race_delay();
  if (t == 0) {
    tiles[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] =
        vec4(near_max[0], far_count[0] > 0u ? far_min[0] : 0.0, float(near_count[0]), float(far_count[0]));
  }
}
