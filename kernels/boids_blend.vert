#version 460
// Seed 004 "additive render": every position becomes a point on the single pixel of a 1x1 RGBA32F target;
// the fragment shader writes it and ONE+ONE blending adds them in primitive order.
layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(location = 0) flat out vec4 position_out;

void main() {
  gl_Position = vec4(0.0, 0.0, 0.0, 1.0);  // the centre of the 1x1 viewport
  gl_PointSize = 1.0;
  position_out = vec4(positions[gl_VertexIndex].xyz, 1.0);  // w counts the points blended
}
