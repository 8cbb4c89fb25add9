// The server's judgements as pure functions (shaderwatch/analysis.hpp), without a database.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "detection/analysis.h"

namespace a = shaderwatch::analysis;

namespace {
a::RunSide side(double level, double step = 0.0001, int n = 10) {
  a::RunSide s;
  for (int i = 0; i < n; ++i) s.reps.push_back(level * (1 + step * i));
  s.value = shaderwatch::stats::median(s.reps);
  return s;
}
}  // namespace

TEST(AnalysisCompare, FloorsDecideBetweenTwoProcesses) {
  // 2% apart, p tiny: slower at 100 us; at 20 us 2% is 400 ns, under the 500 ns floor.
  EXPECT_EQ(a::compare(side(100000), side(102000)).verdict, a::CompareVerdict::Slower);
  EXPECT_EQ(a::compare(side(20000), side(20400)).verdict, a::CompareVerdict::Same);
  a::CompareParams no_ns;
  no_ns.min_delta_ns = 0;
  EXPECT_EQ(a::compare(side(20000), side(20400), no_ns).verdict, a::CompareVerdict::Slower);
  // Inside the benchmark's own 3% spread: same; with the noise floor off: slower.
  auto base = side(100000), cont = side(102000);
  base.spread_pct = 3.0;
  const auto r = a::compare(base, cont);
  EXPECT_EQ(r.verdict, a::CompareVerdict::Same);
  EXPECT_DOUBLE_EQ(*r.floor_pct, 3.0);
  a::CompareParams no_noise;
  no_noise.noise_floor = false;
  EXPECT_EQ(a::compare(base, cont, no_noise).verdict, a::CompareVerdict::Slower);
  EXPECT_EQ(a::compare(side(102000), side(100000)).verdict, a::CompareVerdict::Faster);
}

TEST(AnalysisCompare, ErrorsAndTooFewRepetitionsAreNoVerdict) {
  auto bad = side(100000);
  bad.error = true;
  const auto e = a::compare(bad, side(150000));
  EXPECT_EQ(e.verdict, a::CompareVerdict::Error);
  EXPECT_FALSE(e.delta_pct) << "an error row is never compared as 0";
  const auto one = a::compare(side(100000, 0, 1), side(150000, 0, 1));
  EXPECT_EQ(one.verdict, a::CompareVerdict::InsufficientRepetitions);
  EXPECT_NEAR(*one.delta_pct, 50, 1e-9);
  EXPECT_FALSE(a::compare(side(100000, 0.0001, 3), side(150000, 0.0001, 3)).reliable);
  EXPECT_TRUE(a::compare(side(100000), side(150000)).reliable);
}

TEST(AnalysisSuspect, TheRunIsTheUnit) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0.01);
  std::vector<double> level;
  for (int i = 0; i < 30; ++i) level.push_back(1e5 * std::exp(noise(rng)));
  EXPECT_FALSE(a::suspect(1e5 * 1.01, level)) << "one sigma is noise";
  const auto s = a::suspect(1e5 * 1.06, level);
  ASSERT_TRUE(s) << "six sigma is a suspect";
  EXPECT_NEAR(s->delta, 0.06, 0.015);
  EXPECT_GE(s->z, a::kSuspectZ);
  EXPECT_FALSE(a::suspect(1e5 * 0.90, level)) << "faster is no suspect";
  EXPECT_FALSE(a::suspect(1e5 * 1.5, {1e5, 1e5, 1e5})) << "too few runs for a level";
  // Unchanged series: about 0.13% of runs past 3 sigma (Gaussian); allow a margin.
  int flagged = 0;
  for (int t = 0; t < 2000; ++t) flagged += a::suspect(1e5 * std::exp(noise(rng)), level).has_value();
  EXPECT_LE(flagged, 20) << "of 2000";
}

TEST(AnalysisRankings, AFlipNeedsAGapBeyondNoise) {
  EXPECT_TRUE(a::clear_gap(100, 110, 0.01, 0.01));
  EXPECT_FALSE(a::clear_gap(100, 100.5, 0, 0)) << "under 1%";
  EXPECT_FALSE(a::clear_gap(100, 104, 0.02, 0.02)) << "4% inside twice the combined 2.8% noise";
}

namespace {
// `since`: the series' runs since the step, newest first.
a::BenchmarkEvidence stepped(std::vector<double> since, bool acknowledged = false) {
  a::BenchmarkEvidence b;
  b.name = "lum/x/1080p/cold";
  b.value = since.front();
  b.open.push_back({7, acknowledged, 100.0, 108.0, 0.015});  // a +8% step with a 1.5% floor
  b.open.back().since = std::move(since);
  return b;
}
}  // namespace

TEST(AnalysisVerdict, RegressionsGateWhilePresentAtTheRunsLevel) {
  a::RunEvidence run;
  run.benchmarks.push_back(stepped(std::vector<double>(6, 108.0)));
  auto v = a::judge(run);
  EXPECT_TRUE(v.fail);
  ASSERT_EQ(v.regressions.size(), 1u);
  EXPECT_EQ(v.regressions[0], 7);
  // Half of it won back (a later improvement): +3.7% is still a regression.
  run.benchmarks[0] = stepped(std::vector<double>(6, 103.7));
  EXPECT_TRUE(a::judge(run).fail);
  // Back on the old level: no longer gates.
  run.benchmarks[0] = stepped(std::vector<double>(6, 100.1));
  v = a::judge(run);
  EXPECT_FALSE(v.fail);
  EXPECT_TRUE(v.regressions.empty());
  // Acknowledged: listed, not failing.
  run.benchmarks[0] = stepped(std::vector<double>(6, 108.0), true);
  v = a::judge(run);
  EXPECT_FALSE(v.fail);
  EXPECT_EQ(v.acknowledged.size(), 1u);
}

TEST(AnalysisVerdict, ABranchRunGatesOnCorrectnessOnly) {
  a::RunEvidence run;
  run.on_main = false;
  run.benchmarks.push_back(stepped(std::vector<double>(6, 108.0)));
  EXPECT_FALSE(a::judge(run).fail) << "main's regressions are main's";
  a::BenchmarkEvidence broken;
  broken.name = "lum/y/1080p/cold";
  broken.failed = true;
  broken.passed_before = true;
  run.benchmarks.push_back(broken);
  const auto v = a::judge(run);
  EXPECT_TRUE(v.fail);
  ASSERT_EQ(v.correctness.size(), 1u);
  EXPECT_EQ(v.correctness[0].kind, shaderwatch::detect::AlertKind::CorrectnessRegression);
}

TEST(AnalysisVerdict, ASlowRunIsASuspectNotAFailure) {
  a::RunEvidence run;
  a::BenchmarkEvidence b;
  b.name = "lum/z/1080p/cold";
  b.value = 110;
  for (int i = 0; i < 20; ++i) b.level_runs.push_back(100 * (1 + 0.002 * (i % 5 - 2)));
  run.benchmarks.push_back(b);
  const auto v = a::judge(run);
  EXPECT_FALSE(v.fail);
  ASSERT_EQ(v.suspects.size(), 1u);
  EXPECT_NEAR(v.suspects[0].suspect.delta, 0.10, 0.01);
}

TEST(AnalysisRankings, FlipsOnlyWhereBothOrdersAreBeyondNoise) {
  // GPU 0: x 100, y 110, z 103; GPU 1: x 110, y 100, z 115.
  const std::map<std::size_t, a::GpuVariants> clear = {
      {0, {{"x", {100, 0.005}}, {"y", {110, 0.005}}, {"z", {103, 0.005}}}},
      {1, {{"x", {110, 0.005}}, {"y", {100, 0.005}}, {"z", {115, 0.005}}}}};
  const auto f = a::flips(clear);
  // x/y swap by 10% on both: a flip. y/z swap too (110 vs 103, 100 vs 115). x/z keep their order.
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].faster_on_a, "x");
  EXPECT_EQ(f[0].faster_on_b, "y");
  EXPECT_NEAR(f[0].gap_on_a_rel, 0.1 / 1.1, 1e-12);
  EXPECT_NEAR(f[0].gap_on_b_rel, 0.1, 1e-12);
  EXPECT_EQ(f[1].faster_on_a, "z");
  EXPECT_EQ(f[1].faster_on_b, "y");
  // The same swaps with 6% noise on GPU 1's series (a gap must then pass 17%): beyond noise on GPU 0 only, no flip.
  auto noisy = clear;
  for (auto& [v, t] : noisy[1]) t.noise = 0.06;
  EXPECT_TRUE(a::flips(noisy).empty());
  // A variant missing on one GPU is never compared there.
  auto missing = clear;
  missing[1].erase("x");
  ASSERT_EQ(a::flips(missing).size(), 1u);
  EXPECT_EQ(a::flips(missing)[0].faster_on_a, "z");
}

// The run's noise note: named where a tenth of its series or more had their noise rise, with the boundary and the
// cause most of them share; a series whose noise fell is no reason to warn.
TEST(Analysis, ARunsNoiseIsNamedWhereATenthOfItsSeriesGotNoisier) {
  using shaderwatch::analysis::NoisySeries;
  using shaderwatch::analysis::noise_finding;
  std::vector<NoisySeries> noisy;
  for (int i = 0; i < 9; ++i) noisy.push_back({2.0 + i, i < 6 ? "r30" : "r31", i < 5 ? "machine" : "driver"});
  noisy.push_back({0.5, "r29", "commit"});  // fell
  EXPECT_FALSE(noise_finding(noisy, 100)) << "9 of 100 series";
  const auto f = noise_finding(noisy, 90);
  ASSERT_TRUE(f) << "9 of 90 series";
  EXPECT_EQ(f->benchmarks, 9);
  EXPECT_DOUBLE_EQ(f->ratio, 6.0);
  EXPECT_EQ(f->since_run, "r30");
  EXPECT_EQ(f->cause, "machine");
  EXPECT_FALSE(noise_finding({{0.9, "r1", "machine"}}, 1)) << "a noise that fell";
  EXPECT_TRUE(noise_finding({{1.5, "r1", "machine"}}, 5)) << "one series of five";
}
