#version 460
// A luminance tile sum as a team would write it: each invocation adds PIXELS pixels of its row, subgroupAdd, one
// partial per subgroup in shared memory, and the first subgroup adds those. One float per 64x16-pixel tile.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer Image { vec4 pixels[]; };
layout(std430, binding = 1) writeonly buffer Sums { float sums[]; };
layout(push_constant) uniform Size { uint width, height; };

shared float partials[256];

void main() {
  const uint x0 = gl_GlobalInvocationID.x * PIXELS, y = gl_GlobalInvocationID.y;
  float sum = 0.0;
  for (uint i = 0; i < PIXELS; ++i) {
    const uint x = x0 + i;
    if (x < width && y < height) sum += dot(pixels[y * width + x], vec4(0.2125, 0.7154, 0.0721, 0.0));
  }
  sum = subgroupAdd(sum);
  if (subgroupElect()) partials[gl_SubgroupID] = sum;
  barrier();
  if (gl_SubgroupID == 0) {
    float total = 0.0;
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) total += partials[i];
    total = subgroupAdd(total);
    if (subgroupElect()) sums[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] = total;
  }
}
