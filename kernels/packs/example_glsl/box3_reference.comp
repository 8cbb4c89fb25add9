#version 460
// The 3x3 box filter's reference, as plainly as it can be written: one invocation per pixel, the nine taps read
// straight from the image, added and divided in double, written as doubles (precision = "fp64" in pack.toml), so
// that the tolerance covers the kernel's float rounding alone.
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { dvec4 dst[]; };
layout(push_constant) uniform Size { uint width, height; } p;

void main() {
  const ivec2 xy = ivec2(gl_GlobalInvocationID.xy);
  if (xy.x >= p.width || xy.y >= p.height) return;
  const ivec2 last = ivec2(p.width, p.height) - 1;
  dvec4 sum = dvec4(0);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const ivec2 q = clamp(xy + ivec2(dx, dy), ivec2(0), last);
      sum += dvec4(src[q.y * p.width + q.x]);
    }
  dst[xy.y * p.width + xy.x] = sum / 9.0;
}
