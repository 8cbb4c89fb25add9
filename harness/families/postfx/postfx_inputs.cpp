// The post-processing family's generator: the luminance family's random image, or the HDR test image.
#include <algorithm>
#include <cmath>
#include <thread>

#include "common/parallel_bands.h"
#include "families/luminance/luminance_family.h"
#include "families/postfx/postfx_family.h"

namespace shaderwatch {

Problem make_postfx_problem(InputKind kind, uint32_t width, uint32_t height, uint64_t seed) {
  Problem p = make_luminance_problem(kind == InputKind::HdrTest ? InputKind::Zeros : InputKind::Random, width, height, seed);
  p.family = Family::Postfx;
  p.kind = kind;
  if (kind != InputKind::HdrTest) return p;
  // Left to right, luminance climbs from 0 to 10^4 on a log scale; the hue turns from top to bottom. A band
  // of black rows, three saturated primaries and a sun of 10^5 in the top right corner. Each pixel a function of
  // its place alone, so bands of rows are made on threads of their own (at 8K: seconds on one core, which the
  // benchmark's first post-processing kernel waited for).
  const uint32_t threads = std::max(1u, std::min(std::thread::hardware_concurrency(), height / 64 + 1));
  parallel_bands(height, threads, [&](unsigned, uint64_t y0, uint64_t y1) {
    for (uint32_t y = y0; y < y1; ++y) {
      for (uint32_t x = 0; x < width; ++x) {
        const double u = width > 1 ? double(x) / (width - 1) : 0.0, v = height > 1 ? double(y) / (height - 1) : 0.0;
        const double level = std::pow(1e4 + 1.0, u) - 1.0;
        double rgb[3] = {level * (0.5 + 0.5 * std::cos(6.2832 * v)), level * (0.5 + 0.5 * std::cos(6.2832 * (v - 0.33))),
                         level * (0.5 + 0.5 * std::cos(6.2832 * (v - 0.67)))};
        if (v >= 0.45 && v < 0.5) rgb[0] = rgb[1] = rgb[2] = 0.0;
        if (v >= 0.6 && v < 0.7) {
          const int primary = static_cast<int>(3 * u) % 3;
          for (int c = 0; c < 3; ++c) rgb[c] = c == primary ? 50.0 : 0.0;
        }
        const double dx = u - 0.85, dy = v - 0.15;
        if (dx * dx + dy * dy < 0.003) rgb[0] = rgb[1] = rgb[2] = 1e5;
        float* px = &p.data[(uint64_t{y} * width + x) * 4];
        for (int c = 0; c < 3; ++c) px[c] = static_cast<float>(rgb[c]);
      }
    }
  });
  return p;
}

}  // namespace shaderwatch
