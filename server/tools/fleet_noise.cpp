#include "fleet_noise.h"

#include <cmath>
#include <iterator>
#include <utility>

namespace shaderwatch::fleet {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double real_spread(double ns) {
  static const std::pair<double, double> table[] = {{10e3, 0.0030}, {20e3, 0.0023}, {55e3, 0.00107},
                                                    {170e3, 0.00083}, {550e3, 0.00078}, {3e6, 0.00018}};
  if (ns <= table[0].first) return table[0].second;
  for (std::size_t i = 1; i < std::size(table); ++i)
    if (ns <= table[i].first) {
      const double f = std::log(ns / table[i - 1].first) / std::log(table[i].first / table[i - 1].first);
      return table[i - 1].second * std::pow(table[i].second / table[i - 1].second, f);
    }
  return std::end(table)[-1].second;
}

double NoiseGen::series_noisiness(int g, int b) const {
  const std::uint64_t x = series_seed ^ (static_cast<std::uint64_t>(g) << 32) ^ static_cast<std::uint64_t>(b);
  const auto uniform = [](std::uint64_t z) { return static_cast<double>(mix(z) >> 11) * 0x1.0p-53; };
  const double u1 = std::max(uniform(x), 1e-300), u2 = uniform(x + 0x9e3779b97f4a7c15ULL);  // splitmix64's next
  return std::exp(0.5 * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
}

double NoiseGen::run_factor(double scale, double ns, int g, int b) {
  switch (kind) {
    case Noise::Heavy: return std::exp(scale * 0.01 * t3(rng) / std::sqrt(3.0));  // t3 has variance 3
    case Noise::Twomode: {
      const double f = std::exp(scale * run_sd(rng));
      return slow_mode(rng) ? f * slow_factor(rng) : f;
    }
    case Noise::Reps: return 1.0;
    case Noise::Real:
      // 1.057: the median absolute value of lognormal(0.5) x t4 over 0.6745, so the spread is the table's.
      return std::exp(scale * real_spread(ns) * series_noisiness(g, b) * t4(rng) / 1.057);
    case Noise::Gauss: break;
  }
  return std::exp(scale * run_sd(rng));
}

double NoiseGen::rep_factor(double scale, double ns) {
  if (kind == Noise::Real) return std::exp(rep_sd(rng) * real_spread(ns) / 0.003);
  return std::exp(rep_sd(rng) * (kind == Noise::Reps ? scale * 0.01 / 0.003 : 1.0));
}

}  // namespace shaderwatch::fleet
