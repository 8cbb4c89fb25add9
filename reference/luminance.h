#pragma once
// CPU reference for the luminance reductions: per-pixel luminance in double from the float32 inputs,
// summed with compensation over whatever partition of the image a kernel writes one output element for.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace shaderwatch::reference {

// The luminance weights exactly as the shaders hold them: float32 constants, widened to double, so the
// reference computes what the kernel is asked to compute (the decimal weights differ by ~1e-8).
inline constexpr float kLumWeights[3] = {0.2125f, 0.7154f, 0.0721f};
// Reinhard's delta in ln(delta + L) for the log-average.
inline constexpr float kLogDelta = 1e-4f;

struct PixelLuminance {
  double value;      // sum_c w_c * rgb_c
  double magnitude;  // sum_c |w_c * rgb_c|: the scale of the float dot product's rounding error
};
PixelLuminance pixel_luminance(const float* rgba);

// One output element's expected values: sums over the pixels the kernel assigns to it.
struct LuminanceGroup {
  double sum = 0;            // sum of L
  double abs_sum = 0;        // sum of per-pixel magnitudes: the scale of the summation bound
  double log_sum = 0;        // sum of ln(delta + L)
  double log_abs_sum = 0;    // sum of |ln(delta + L)|
  double min = 0, max = 0;   // extreme L (valid when pixels > 0)
  double max_magnitude = 0;  // largest per-pixel magnitude (bounds min/max's rounding)
  uint64_t pixels = 0;
};

// Maps pixel (x, y) to the output element it belongs to, in [0, groups).
using PixelToGroup = std::function<uint32_t(uint32_t x, uint32_t y)>;

// Sums an RGBA32F image (width*height*4 floats) into `groups` elements according to `assign`.
std::vector<LuminanceGroup> reduce_luminance(std::span<const float> rgba, uint32_t width, uint32_t height,
                                             uint32_t groups, const PixelToGroup& assign);

// The whole image as one group.
LuminanceGroup total_luminance(std::span<const float> rgba, uint32_t width, uint32_t height);

// Merges groups (compensated), for totals built from partitions.
LuminanceGroup merge(std::span<const LuminanceGroup> groups);

}  // namespace shaderwatch::reference
