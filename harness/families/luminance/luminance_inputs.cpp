// The luminance family's generator: an RGBA image of the kind's values (inputs/inputs.h's sampler), alpha 1.
#include <random>
#include <stdexcept>
#include <string>

#include "families/luminance/luminance_family.h"

namespace shaderwatch {

Problem make_luminance_problem(InputKind kind, uint32_t width, uint32_t height, uint64_t seed) {
  if (width == 0 || height == 0) {
    throw std::invalid_argument("empty image " + std::to_string(width) + "x" + std::to_string(height) +
                                ": a luminance reduction needs at least one pixel");
  }
  if (uint64_t{width} * height > (uint64_t{1} << 31)) {
    throw std::invalid_argument("image " + std::to_string(width) + "x" + std::to_string(height) +
                                " has more than 2^31 pixels, past 32-bit pixel indices");
  }
  Problem p{Family::Luminance, kind, seed, width, height, 0, {}};
  p.data.resize(uint64_t{width} * height * 4);
  std::mt19937_64 rng(seed);
  const int whole_limit = whole_number_limit(uint64_t{width} * height);
  for (uint64_t i = 0; i < p.data.size(); i += 4) {
    for (int c = 0; c < 3; ++c) p.data[i + c] = sample_value(kind, rng, kind != InputKind::Signed, whole_limit);
    p.data[i + 3] = 1.0f;  // alpha: weight 0 in the luminance
  }
  return p;
}

}  // namespace shaderwatch
