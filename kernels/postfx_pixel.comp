#version 460
// One post-processing stage per pixel: input image -> output image, RGBA32F (alpha carried through).
// STAGE: 0 RGB->Yxy, 1 Yxy->RGB, 2 tone map Y of a Yxy image (OPERATOR), 3 ACES Hill on exposed RGB,
// 4 bright-pass on Y, 5 local gamma on Y, 6 the fused pass RGB -> Yxy -> exposure -> tone map -> local
// gamma -> RGB with the operator as specialization constant 0, 7 circle of confusion from depth (.w).
#extension GL_GOOGLE_include_directive : require
#include "postfx.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(constant_id = 0) const int kFusedOperator = 0;

void main() {
  const uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= params.width || p.y >= params.height) return;
  const uint i = p.y * params.width + p.x;
  const vec4 v = src[i];
  vec4 o = v;
#if STAGE == 0
  o.xyz = rgb_to_yxy(v.rgb);
#elif STAGE == 1
  o.rgb = yxy_to_rgb(v.xyz);
#elif STAGE == 2
  o.x = tone_map(OPERATOR, v.x * params.exposure);
#elif STAGE == 3
  o.rgb = aces_hill(v.rgb * params.exposure);
#elif STAGE == 4
  o.x = bright_pass(v.x);
#elif STAGE == 5
  o.x = local_gamma(v.x);
#elif STAGE == 6
  vec3 Yxy = rgb_to_yxy(v.rgb);
  Yxy.x = local_gamma(tone_map(kFusedOperator, Yxy.x * params.exposure));
  o.rgb = yxy_to_rgb(Yxy);
#elif STAGE == 7
  o = vec4(circle_of_confusion(v.w), 0.0, 0.0, 1.0);
#else
#error unknown STAGE
#endif
  dst[i] = o;
}
