#version 460
// First step of seed 004's mip-chain average: position i goes to texel (i % side, i / side) of a square
// RGBA32F image with w = 1 (texels past N stay cleared to 0); vkCmdBlitImage then halves it level by
// level to 1x1, each level averaging 2x2 texels. Defines: GROUP.
#extension GL_GOOGLE_include_directive : require
#include "boids_common.glsl"

layout(local_size_x = GROUP) in;
layout(binding = 1, rgba32f) writeonly uniform image2D level0;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= params.count) return;
  const uint side = uint(imageSize(level0).x);
  imageStore(level0, ivec2(i % side, i / side), vec4(positions[i].xyz, 1.0));
}
