// The fleet simulation's noise models as draws (fleet_scenarios.h, Noise, says what each is): the run factor of a
// series' run and its repetitions'. Shared by the fleet (fleet_scenarios.cpp) and the detector's power against the
// oracle (detector_power.cpp), so both measure under the same noise.
#pragma once

#include <cstdint>
#include <random>

#include "fleet_scenarios.h"

namespace shaderwatch::fleet {

std::uint64_t mix(std::uint64_t x);  // splitmix64: independent streams from related seeds

// The real model's run-to-run spread at a duration (ns), as the median absolute change over 0.6745 of three H200
// runs of one build (86de8e8), by duration, interpolated in logs.
double real_spread(double ns);

// Multiplicative noise of one series' run: the run factor and the repetitions around it.
struct NoiseGen {
  Noise kind;
  std::mt19937_64 rng;
  std::normal_distribution<double> run_sd{0, 0.01}, rep_sd{0, 0.003};
  std::student_t_distribution<double> t3{3}, t4{4};
  std::bernoulli_distribution slow_mode{0.05};
  std::uniform_real_distribution<double> slow_factor{1.5, 3.5};
  std::uint64_t series_seed = 0;  // the real model's noisiness of each series, the same for main and probes

  // The real model's noisiness of GPU g's benchmark b: lognormal, sd 0.5 in logs, from a hash (no draw from rng).
  double series_noisiness(int g, int b) const;
  // `scale`: the runner's noise (Plan::nz); it widens the run-to-run spread (under reps, the repetitions'),
  // drawing the same numbers, so a scale of 1 gives every scenario the same stream as before it existed.
  // `ns`, g, b: the benchmark's base time and series, which only the real model reads.
  double run_factor(double scale, double ns, int g, int b);
  double rep_factor(double scale, double ns);
};

}  // namespace shaderwatch::fleet
