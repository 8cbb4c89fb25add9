// Shared by the boids compute kernels: N positions as vec4 (xyz, w unused; std430 pads vec3 arrays to
// 16 bytes anyway) and the push constants.
layout(push_constant) uniform Params {
  uint count;   // number of positions read
  uint slices;  // invocations that split the input (two-pass and groupshared kernels); the grid's workgroups (boids_grid)
} params;

layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
