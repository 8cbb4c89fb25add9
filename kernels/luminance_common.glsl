// Shared by the luminance kernels: the input image, the weights and the push constants.
// Defines: none. The includer serves this file from the binary (run time) or -I kernels (build time).
const vec4 kLumWeights = vec4(0.2125, 0.7154, 0.0721, 0.0);  // DirectX SDK LUMINANCE_VECTOR

layout(push_constant) uniform Params {
  uint width;         // image width in pixels
  uint height;        // image height in pixels
  uint pixel_count;   // width * height
  uint total_groups;  // groups in the dispatch (partials written)
} params;

layout(std430, binding = 0) readonly buffer Image { vec4 pixels[]; };

float luminance(vec4 rgba) { return dot(rgba, kLumWeights); }

// Luminance of pixel (x, y), 0 outside the image: tiles at the right and bottom edges are partial
// (1080 is not a multiple of 16), and reading past them would sum the next row or the guard zone.
float luminance_at(uint x, uint y) {
  return (x < params.width && y < params.height) ? luminance(pixels[y * params.width + x]) : 0.0;
}

uint group_linear_index() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
