// The boids family's generator: positions (xyz, w 0) of the kind's values (inputs/inputs.h's sampler).
#include <random>
#include <stdexcept>
#include <string>

#include "families/boids/boids_family.h"

namespace shaderwatch {

Problem make_boids_problem(InputKind kind, uint64_t count, uint64_t seed) {
  if (count == 0) throw std::invalid_argument("no boids (count 0): an average needs at least one position");
  if (count > (uint64_t{1} << 28)) throw std::invalid_argument("more than 2^28 boids: " + std::to_string(count));
  Problem p{Family::Boids, kind, seed, 0, 0, count, {}, SizeKind::Count};
  p.data.resize(count * 4);
  std::mt19937_64 rng(seed);
  const int whole_limit = whole_number_limit(count);
  for (uint64_t i = 0; i < count; ++i) {
    for (int c = 0; c < 3; ++c) p.data[i * 4 + c] = sample_value(kind, rng, false, whole_limit);
    p.data[i * 4 + 3] = 0.0f;
  }
  return p;
}

}  // namespace shaderwatch
