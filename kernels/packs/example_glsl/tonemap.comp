#version 460
// Reinhard on Y of a Yxy image, exposed by the scene's key / log-average luminance, as a team would write it:
// one invocation per pixel, x, y and alpha passed through.
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) readonly buffer Yxy { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Out { vec4 dst[]; };
layout(push_constant) uniform Params {
  uint width, height, pad0, pad1;
  float exposure;  // the first of the bench's post-processing parameters (kernels/postfx.glsl has them all)
} p;

void main() {
  const uvec2 xy = gl_GlobalInvocationID.xy;
  if (xy.x >= p.width || xy.y >= p.height) return;
  const uint i = xy.y * p.width + xy.x;
  vec4 v = src[i];
  const float Y = v.x * p.exposure;
  v.x = Y / (1.0 + Y);
  dst[i] = v;
}
