#version 460
// Writes the point's position unchanged (flat: no interpolation); blending sums them.
layout(location = 0) flat in vec4 position_in;
layout(location = 0) out vec4 color;

void main() { color = position_in; }
