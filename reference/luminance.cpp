#include "luminance.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "summation.h"

namespace shaderwatch::reference {

PixelLuminance pixel_luminance(const float* rgba) {
  PixelLuminance p{0.0, 0.0};
  for (int c = 0; c < 3; ++c) {
    const double term = static_cast<double>(kLumWeights[c]) * static_cast<double>(rgba[c]);
    p.value += term;  // three terms in double: exact to ~1e-16 relative, negligible here
    p.magnitude += std::fabs(term);
  }
  return p;
}

namespace {
struct GroupAccumulator {
  NeumaierSum sum, abs_sum, log_sum, log_abs_sum;
  double min = INFINITY, max = -INFINITY, max_magnitude = 0;
  uint64_t pixels = 0;

  void add(const PixelLuminance& p) {
    sum.add(p.value);
    abs_sum.add(p.magnitude);
    const double log_term = std::log(static_cast<double>(kLogDelta) + p.value);
    log_sum.add(log_term);
    log_abs_sum.add(std::fabs(log_term));
    min = std::min(min, p.value);
    max = std::max(max, p.value);
    max_magnitude = std::max(max_magnitude, p.magnitude);
    ++pixels;
  }
  LuminanceGroup result() const {
    return LuminanceGroup{sum.value(), abs_sum.value(), log_sum.value(), log_abs_sum.value(),
                          min, max, max_magnitude, pixels};
  }
};
}  // namespace

std::vector<LuminanceGroup> reduce_luminance(std::span<const float> rgba, uint32_t width, uint32_t height,
                                             uint32_t groups, const PixelToGroup& assign) {
  if (rgba.size() < static_cast<size_t>(width) * height * 4) {
    throw std::invalid_argument("reduce_luminance: image data holds " + std::to_string(rgba.size()) +
                                " floats, " + std::to_string(width) + "x" + std::to_string(height) +
                                " RGBA needs " + std::to_string(static_cast<size_t>(width) * height * 4));
  }
  std::vector<GroupAccumulator> acc(groups);
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      const uint32_t g = assign(x, y);
      if (g >= groups) {
        throw std::out_of_range("reduce_luminance: pixel (" + std::to_string(x) + "," + std::to_string(y) +
                                ") assigned to group " + std::to_string(g) + " of " + std::to_string(groups));
      }
      acc[g].add(pixel_luminance(&rgba[(static_cast<size_t>(y) * width + x) * 4]));
    }
  }
  std::vector<LuminanceGroup> out;
  out.reserve(groups);
  for (const auto& a : acc) out.push_back(a.result());
  return out;
}

LuminanceGroup total_luminance(std::span<const float> rgba, uint32_t width, uint32_t height) {
  return reduce_luminance(rgba, width, height, 1, [](uint32_t, uint32_t) { return 0u; })[0];
}

LuminanceGroup merge(std::span<const LuminanceGroup> groups) {
  NeumaierSum sum, abs_sum, log_sum, log_abs_sum;
  LuminanceGroup out;
  out.min = INFINITY;
  out.max = -INFINITY;
  for (const auto& g : groups) {
    sum.add(g.sum);
    abs_sum.add(g.abs_sum);
    log_sum.add(g.log_sum);
    log_abs_sum.add(g.log_abs_sum);
    if (g.pixels > 0) {
      out.min = std::min(out.min, g.min);
      out.max = std::max(out.max, g.max);
    }
    out.max_magnitude = std::max(out.max_magnitude, g.max_magnitude);
    out.pixels += g.pixels;
  }
  out.sum = sum.value();
  out.abs_sum = abs_sum.value();
  out.log_sum = log_sum.value();
  out.log_abs_sum = log_abs_sum.value();
  return out;
}

}  // namespace shaderwatch::reference
