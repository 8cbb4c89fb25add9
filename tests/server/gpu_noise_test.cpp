// A GPU's noise per run from all its series (detection/gpu_noise.h), and the detector judging a run by it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "detection/detect.h"
#include "detection/gpu_noise.h"

namespace d = shaderwatch::detect;

namespace {

// `n_series` series of 60 runs (ids 1..60) in 1% noise around levels 1 us .. 1 ms; from run `from` on, the noise
// is `noisier` times larger and the level `shift` higher (in the first `shifted` series).
std::vector<std::vector<d::RunValue>> gpu(std::mt19937_64& rng, int n_series, int from, double noisier, double shift,
                                          int shifted) {
  std::normal_distribution<double> z(0, 1);
  std::vector<std::vector<d::RunValue>> out(static_cast<std::size_t>(n_series));
  for (int s = 0; s < n_series; ++s) {
    const double base = 1e3 * std::pow(1e3, s / static_cast<double>(n_series));
    for (int r = 1; r <= 60; ++r) {
      const bool after = r >= from;
      const double sd = 0.01 * (after ? noisier : 1.0);
      out[static_cast<std::size_t>(s)].push_back(
          {r, d::log_value(base * std::exp(sd * z(rng) + (after && s < shifted ? shift : 0.0)))});
    }
  }
  return out;
}

}  // namespace

TEST(GpuNoise, ARunnerFourTimesNoisierShowsFromItsFirstRun) {
  std::mt19937_64 rng(1);
  // From run 46: a quarter of each series' window (relative to the series' typical difference, a noisier stretch
  // of half the window or more shows less, as the series' own noise has become its noise by then).
  const auto f = d::gpu_noise_by_run(gpu(rng, 100, 46, 4.0, 0, 0));
  for (std::int64_t r = 2; r <= 45; ++r) EXPECT_LT(f.at(r), 1.4) << "run " << r;
  EXPECT_GT(f.at(46), 2.0) << "the first noisy run: its difference is half quiet";
  for (std::int64_t r = 47; r <= 60; ++r) EXPECT_GT(f.at(r), 2.2) << "run " << r;
  EXPECT_FALSE(f.count(1)) << "the first run has no difference into it";
}

TEST(GpuNoise, StepsAreNotNoise) {
  // Every series 4% slower at run 31 (another machine); a third 3% slower (a driver): the common shift is taken out,
  // and a third of the series moving leaves the median under the 2x that counts as noisier.
  std::mt19937_64 rng(2);
  const auto all = d::gpu_noise_by_run(gpu(rng, 100, 31, 1.0, 0.04, 100));
  EXPECT_LT(all.at(31), 1.4);
  const auto third = d::gpu_noise_by_run(gpu(rng, 99, 31, 1.0, 0.03, 33));
  EXPECT_LT(third.at(31), 2.0);
}

TEST(GpuNoise, TooFewSeriesGiveNoFactor) {
  std::mt19937_64 rng(3);
  EXPECT_TRUE(d::gpu_noise_by_run(gpu(rng, static_cast<int>(d::kGpuNoiseMinSeries) - 1, 31, 4.0, 0, 0)).empty());
}

TEST(GpuNoise, SixRunsOfANoisierGpuAreNotAStep) {
  // 30 quiet runs, then 6 on a 4x noisier runner whose values happen to sit 5.4% higher with a small spread (3.3
  // standard errors of a mean of 6 at the runner's noise, 13 at the old one): alone, that is a step; with the
  // GPU's noise known, it is not.
  std::mt19937_64 rng(4);
  std::normal_distribution<double> z(0, 1);
  std::vector<d::Point> pts;
  for (int i = 0; i < 30; ++i) pts.push_back({1e5 * std::exp(0.01 * z(rng)), {}});
  for (const double v : {0.03, 0.055, 0.045, 0.065, 0.07, 0.06}) pts.push_back({1e5 * std::exp(v), {}});
  const d::Params p;
  const auto alone = d::detect(d::kept_runs(pts, p), p);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].outcome, d::ChangeKind::Regression);
  std::vector<double> factor(pts.size(), 1.0);
  for (std::size_t i = 30; i < pts.size(); ++i) factor[i] = 4.0;
  EXPECT_TRUE(d::detect(d::kept_runs(pts, p, factor), p).empty());
}
