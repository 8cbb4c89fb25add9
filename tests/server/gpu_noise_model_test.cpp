// The GPU's noise model (detection/gpu_noise_model.h) and the gate's floors it sets, as pure functions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "common/statistics.h"
#include "detection/analysis.h"
#include "detection/gpu_noise_model.h"

namespace a = shaderwatch::analysis;
namespace d = shaderwatch::detect;

namespace {

// `n` series of `runs` runs each, series k at base(k) ns with lognormal run-to-run noise of sigma(k).
struct Suite {
  std::vector<std::vector<double>> runs;
  std::vector<double> base;
};
template <class Sigma>
Suite suite(int n, int runs, Sigma sigma, std::uint64_t seed, double base_ns = 1e5) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  Suite s;
  for (int k = 0; k < n; ++k) {
    s.base.push_back(base_ns * (1 + k % 7));
    auto& v = s.runs.emplace_back();
    for (int r = 0; r < runs; ++r) v.push_back(s.base.back() * std::exp(sigma(k) * z(rng)));
  }
  return s;
}
std::vector<d::SeriesRuns> series_of(const Suite& s) {
  std::vector<d::SeriesRuns> out;
  for (const auto& v : s.runs) out.push_back({&v, false});
  return out;
}
// A run judged against those series (each benchmark's level: its runs), benchmark `slow` times `factor`.
a::RunEvidence run_of(const Suite& s, int slow, double factor) {
  a::RunEvidence run;
  for (std::size_t k = 0; k < s.runs.size(); ++k) {
    auto& b = run.benchmarks.emplace_back();
    b.name = "lum/k" + std::to_string(k) + "/1080p/cold";
    b.value = s.base[k] * (static_cast<int>(k) == slow ? factor : 1.0);
    b.level_runs = {s.runs[k].end() - static_cast<std::ptrdiff_t>(std::min<std::size_t>(s.runs[k].size(), 48)),
                    s.runs[k].end()};
    b.swing_history = s.runs[k];
    b.history = s.runs[k].size();
  }
  return run;
}

// 340 series of `runs` runs at 0.1% noise, and the same draws with four series of one kernel at 1.2% (a depth-of-field
// kernel at 10x its neighbours' noise, as on the H200s).
struct QuietAndNoisy {
  Suite quiet, noisy;
};
QuietAndNoisy one_noisy_kernel(int runs, std::uint64_t seed) {
  return {suite(340, runs, [](int) { return 0.001; }, seed), suite(340, runs, [](int k) { return k < 4 ? 0.012 : 0.001; }, seed)};
}

}  // namespace

TEST(GpuNoiseModel, NeedsEnoughChangesBeforeItReplacesThePrior) {
  const auto s = suite(100, 2, [](int) { return 0.01; }, 1);  // 100 changes
  EXPECT_FALSE(d::learn_noise_model(series_of(s), 100).ready);
  const auto t = suite(100, 3, [](int) { return 0.01; }, 1);  // 200
  const auto m = d::learn_noise_model(series_of(t), 100);
  EXPECT_TRUE(m.ready);
  EXPECT_EQ(m.changes, 200u);
}

// 350 series in 1% normal noise: the scale is one change's sd (1.41%), the tail a normal one's at the target rate
// (4.5-5 sigma for 1e-3 / 350 two-sided), with margin for its estimate; a 20% slowdown fails, 2% does not.
TEST(GpuNoiseModel, ANormalGpusFloorIsAFewOfItsSigmas) {
  const auto s = suite(350, 24, [](int) { return 0.01; }, 2);
  const auto m = d::learn_noise_model(series_of(s), 350);
  ASSERT_TRUE(m.ready);
  // Each the larger of the duration's and the series' own (a median of 23 changes: up to about 1.8x the truth).
  for (double sc : m.scale) {
    EXPECT_GT(sc, 0.012);
    EXPECT_LT(sc, 0.028);
  }
  EXPECT_GT(m.tail, 4.0);
  EXPECT_LT(m.tail, 9.0);
  EXPECT_GT(m.suspect, 2.0);
  EXPECT_LT(m.suspect, m.tail);
  const auto run = run_of(s, 17, 1.2);
  const auto v = a::judge(run);  // its findings point into the run
  EXPECT_TRUE(v.coverage.modeled);
  ASSERT_EQ(v.slowdowns.size(), 1u);
  EXPECT_EQ(v.slowdowns[0].benchmark->name, "lum/k17/1080p/cold");
  EXPECT_LT(v.slowdowns[0].slowdown.floor, 0.15);
  EXPECT_FALSE(a::judge(run_of(s, 17, 1.02)).fail);
}

// Short kernels are noisier than long ones: each benchmark's scale is its duration's.
TEST(GpuNoiseModel, EachDurationHasItsOwnScale) {
  Suite s = suite(200, 12, [](int k) { return k < 100 ? 0.01 : 0.001; }, 3, 1e4);
  for (int k = 100; k < 200; ++k) {
    s.base[k] *= 100;  // 1 ms and up: ten times quieter
    for (double& v : s.runs[k]) v *= 100;
  }
  const auto m = d::learn_noise_model(series_of(s), 200);
  ASSERT_TRUE(m.ready);
  std::vector<double> short_ones(m.scale.begin(), m.scale.begin() + 100), long_ones(m.scale.begin() + 100, m.scale.end());
  std::sort(short_ones.begin(), short_ones.end());
  std::sort(long_ones.begin(), long_ones.end());
  EXPECT_NEAR(short_ones[50] / long_ones[50], 10, 3);
}

// A slowdown the gate failed and its revert (six series 2.9x for one run) are not the noise: the floor stays where
// it was, and a later 1.5x slowdown still fails (the lone swing's 4.4x floor let a 3.6x one pass).
TEST(GpuNoiseModel, ARevertedRegressionIsNotTheNoise) {
  const auto quiet = suite(340, 6, [](int) { return 0.003; }, 4);
  Suite s = quiet;
  for (int k = 0; k < 6; ++k) s.runs[k][4] *= 2.9;  // the second newest run
  const double before = d::learn_noise_model(series_of(quiet), 340).tail;
  const auto m = d::learn_noise_model(series_of(s), 340);
  ASSERT_TRUE(m.ready);
  EXPECT_GT(m.left_out, 0u) << "its run and the revert's";
  EXPECT_LT(m.tail, 1.3 * before);
  EXPECT_TRUE(a::judge(run_of(s, 100, 1.5)).fail);
}

// One series that keeps swinging (a bimodal kernel) raises its own floor, not the others'.
TEST(GpuNoiseModel, OneSwingingSeriesRaisesItsOwnFloorOnly) {
  const auto quiet = suite(340, 24, [](int) { return 0.003; }, 5);
  Suite s = quiet;
  for (std::size_t r = 0; r < s.runs[7].size(); r += 2) s.runs[7][r] *= 1.8;
  const auto q = d::learn_noise_model(series_of(quiet), 340), m = d::learn_noise_model(series_of(s), 340);
  EXPECT_LT(m.tail, 1.3 * q.tail);
  EXPECT_GT(m.scale[7], 20 * m.scale[8]);
}

// The H200's fifth run: four series of one kernel moving 10x their duration's noise at every run (a depth-of-field
// kernel, 1.5% where its neighbours move 0.13%) set their own floors from their fourth change on, and each of their
// changes counts in the tail in units of the others': the GPU's tail stays where the quiet series put it. (Before,
// their own noise counted from 6 changes and in the tail from 12: the tail went from 47 to 336 of the scale.)
TEST(GpuNoiseModel, AFewNoisySeriesOfOneKernelRaiseTheirOwnFloorsFromTheFourthChange) {
  const auto [quiet, noisy] = one_noisy_kernel(5, 9);
  const auto q = d::learn_noise_model(series_of(quiet), 340), m = d::learn_noise_model(series_of(noisy), 340);
  ASSERT_TRUE(q.ready && m.ready);
  EXPECT_LT(m.tail, 1.5 * q.tail) << "quiet " << q.tail;
  for (int k = 0; k < 4; ++k) EXPECT_GT(m.scale[k], 4 * m.scale[10]) << k;
  // One far change among a series' four is the GPU's tail still: not hidden by a scale it made itself.
  Suite lone = quiet;
  for (int k = 0; k < 8; ++k) lone.runs[20 + 30 * k][1 + k % 4] *= 1.03;  // 30 sigma, once each in eight series, two a run
  EXPECT_GT(d::learn_noise_model(series_of(lone), 340).tail, 1.5 * q.tail);
}

// A change across which the kernel's code changed (a commit that slowed it, the gate failing it or not; its revert) is
// code, not the GPU's noise: left out, the tail is the quiet GPU's.
TEST(GpuNoiseModel, AChangeOfTheKernelsCodeIsNotTheNoise) {
  const auto quiet = suite(340, 5, [](int) { return 0.001; }, 11);
  Suite s = quiet;
  std::vector<std::vector<char>> code(340, std::vector<char>(5, 0));
  for (int k = 0; k < 6; ++k) {  // one kernel at six sizes: 1.2-1.5x slower at the fourth run, back at the fifth
    s.runs[k][3] *= 1.2 + 0.06 * k;
    code[k][3] = code[k][4] = 1;
  }
  const auto q = d::learn_noise_model(series_of(quiet), 340);
  const auto blind = d::learn_noise_model(series_of(s), 340);
  auto series = series_of(s);
  for (std::size_t k = 0; k < series.size(); ++k) series[k].code_changed = &code[k];
  const auto m = d::learn_noise_model(series, 340);
  ASSERT_TRUE(q.ready && m.ready);
  // Without the code's flags the steps either raise every floor or cost whole runs of the GPU's noise (here two of
  // four are left out as outliers); with them, only the twelve changes across a code change go.
  EXPECT_TRUE(blind.tail > 2 * q.tail || blind.left_out >= 2 * 340u) << blind.tail << " " << blind.left_out;
  EXPECT_EQ(m.left_out, 0u);
  EXPECT_EQ(m.changes, 4 * 340u - 12);
  EXPECT_LT(m.tail, 1.3 * q.tail);
}

// An H200's fourth run (issue 52's sitting): after three runs, two changes a series, four series of one kernel at
// 10x their duration's noise (a depth-of-field composite) took the tail to 370x and every floor to 100%. Each change
// now counts in the tail in units of the series' other changes from two changes on (own_unit_min_changes): the tail
// stays near the quiet GPU's. Their own floors still come from their fourth change (own_min_changes): one other change
// is too few to set a floor by.
TEST(GpuNoiseModel, TwoChangesOfANoisyKernelAreNotTheGpusTail) {
  const auto [quiet, noisy] = one_noisy_kernel(3, 12);
  const auto q = d::learn_noise_model(series_of(quiet), 340), m = d::learn_noise_model(series_of(noisy), 340);
  ASSERT_TRUE(q.ready && m.ready);
  EXPECT_LT(m.tail, 1.5 * q.tail) << "quiet " << q.tail;
  d::NoiseModelParams before;
  before.own_unit_min_changes = before.own_min_changes;
  EXPECT_GT(d::learn_noise_model(series_of(noisy), 340, before).tail, 3 * q.tail) << "counted from the fourth change";
}

// The series of an open regression are not learned from.
TEST(GpuNoiseModel, AnOpenRegressionsSeriesIsNotLearnedFrom) {
  Suite s = suite(340, 24, [](int) { return 0.003; }, 6);
  auto series = series_of(s);
  for (int k = 0; k < 40; ++k) series[static_cast<std::size_t>(k)].excluded = true;
  const auto m = d::learn_noise_model(series, 340);
  EXPECT_EQ(m.changes + m.left_out, 300u * 23);
}

// A run that scatters four times as far as the GPU's runs raises every floor by its own spread; a step common to all
// its benchmarks is no spread.
TEST(GpuNoiseModel, ANoisierRunRaisesEveryFloor) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> quiet, noisy, stepped;
  for (int i = 0; i < 350; ++i) {
    const double e = z(rng);
    quiet.push_back(e * 0.7);
    noisy.push_back(e * 4 * 0.7);
    stepped.push_back(e * 0.7 + 10);
  }
  EXPECT_DOUBLE_EQ(d::run_spread(quiet), 1.0);
  EXPECT_NEAR(d::run_spread(noisy), 2.8 * (1 + 2 / std::sqrt(350.0)), 0.4);
  EXPECT_DOUBLE_EQ(d::run_spread(stepped), 1.0);
  EXPECT_DOUBLE_EQ(d::run_spread({30.0, 40.0}), 1.0) << "too few to tell";
}

// Each benchmark's scale is the pooled median |change| of the series nearest it in duration (its own where larger),
// here selected afresh for every series from the changes themselves: the model slides one window of counts along
// the durations instead, and must give the same values. Long series (96 runs, 33,000 changes) and some left out.
TEST(GpuNoiseModel, EachScaleIsTheMedianChangeOfItsNeighboursInDuration) {
  constexpr int kSeries = 350, kRuns = 96;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  std::vector<std::vector<double>> values(kSeries);
  std::vector<d::SeriesRuns> series;
  for (int k = 0; k < kSeries; ++k) {
    const double base = 1e3 * std::exp(8 * u(rng)), sigma = 0.001 + 0.03 * u(rng) * u(rng);
    for (int r = 0; r < kRuns - (k % 9 == 0 ? 60 : 0); ++r) values[k].push_back(base * std::exp(sigma * z(rng)));
    series.push_back({&values[k], k % 23 == 4});
  }
  const auto model = d::learn_noise_model(series, kSeries);
  ASSERT_TRUE(model.ready);

  const auto upper_median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  std::vector<double> duration(kSeries);
  std::vector<std::vector<double>> changes(kSeries);
  for (int k = 0; k < kSeries; ++k) {
    duration[k] = upper_median(values[k]);
    for (std::size_t j = 1; j < values[k].size(); ++j) changes[k].push_back(std::fabs(std::log(values[k][j] / values[k][j - 1])));
  }
  std::vector<int> by_duration(kSeries);
  for (int k = 0; k < kSeries; ++k) by_duration[k] = k;
  std::sort(by_duration.begin(), by_duration.end(), [&](int a, int b) { return duration[a] < duration[b]; });
  const std::size_t half = std::max<std::size_t>(d::kMinNeighbours, kSeries / d::NoiseModelParams{}.neighbours_per);
  const std::size_t width = std::min<std::size_t>(kSeries, 2 * half + 1);
  for (std::size_t r = 0; r < kSeries; ++r) {
    const std::size_t lo = std::min(r > half ? r - half : 0, kSeries - width);
    std::vector<double> pooled;
    for (std::size_t i = lo; i < lo + width; ++i)
      if (!series[by_duration[i]].excluded) pooled.insert(pooled.end(), changes[by_duration[i]].begin(), changes[by_duration[i]].end());
    const int k = by_duration[r];
    const double own = 1.4826 * upper_median(changes[k]);
    EXPECT_EQ(model.scale[k], std::max({1.4826 * upper_median(pooled), shaderwatch::stats::kMinSigma, own})) << "series " << k;
  }
}

// After a main run is judged, the next run's model is learned ahead from this run's evidence: the next run judged on
// the histories one run longer (as the loader gives them) takes that model and learns none; with another series
// open, its input differs and it learns its own.
TEST(GpuNoiseModel, TheNextRunsModelLearnedAheadIsTakenOnlyForThatInput) {
  const Suite s = suite(300, 41, [](int k) { return 0.002 + 0.0001 * (k % 5); }, 21);
  Suite before = s;  // the runs before this one: all but the last
  for (auto& v : before.runs) v.pop_back();
  a::RunEvidence run = run_of(before, -1, 1.0);
  for (std::size_t k = 0; k < run.benchmarks.size(); ++k) {
    run.benchmarks[k].series_id = static_cast<std::int64_t>(k);
    run.benchmarks[k].value = s.runs[k].back();  // this run's value: the suite's last run
  }
  run.benchmarks[7].open.push_back({.raised_here = true});  // raised at this run by its gate
  a::GateParams g;
  a::learn_next_noise_model(run, {12}, g);  // and the gate raised one at series 12 after judging

  a::RunEvidence next = run_of(s, -1, 1.0);  // the next run: every history one run longer
  next.benchmarks[7].open.push_back({});
  next.benchmarks[12].open.push_back({});
  const std::size_t learned = d::noise_models_learned();
  const auto floors = a::model_floors(next, g);
  EXPECT_TRUE(floors.model.ready);
  EXPECT_EQ(d::noise_models_learned(), learned) << "the model learned ahead was not taken";
  EXPECT_EQ(floors.excluded, 2);

  next.benchmarks[12].open.clear();
  a::model_floors(next, g);
  EXPECT_EQ(d::noise_models_learned(), learned + 1) << "a model learned for another input was taken";
}
