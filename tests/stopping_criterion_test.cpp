// The stopping rule and group detection on synthetic sample streams: constant, noisy, drifting, two-group
// (interleaved and in phases), three levels, a clock ramp, a rare slow tail.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "run/stopping_criterion.h"

using namespace shaderwatch;

namespace {

constexpr size_t kBatch = 50;
constexpr double kBatchWall = 0.05;  // wall seconds per batch

struct CheckResult {
  StopReason reason;
  size_t batches;
  SampleStats stats;
  std::vector<double> samples;
};

// Feeds batches of kBatch samples from `sample(batch, index)` until the criterion stops.
CheckResult drive(const std::function<double(size_t, size_t)>& sample, StopOptions options = {}) {
  StoppingCriterion criterion(options);
  for (size_t b = 0;; ++b) {
    std::vector<double> batch;
    for (size_t i = 0; i < kBatch; ++i) batch.push_back(sample(b, i));
    criterion.add_batch(batch);
    if (auto reason = criterion.should_stop(static_cast<double>(b + 1) * kBatchWall)) {
      return {*reason, b + 1, criterion.stats(), criterion.samples()};
    }
  }
}

std::function<double(size_t, size_t)> gaussian(double level, double rel, unsigned seed) {
  auto rng = std::make_shared<std::mt19937_64>(seed);
  return [=](size_t, size_t) { return level * (1 + rel * std::normal_distribution<double>()(*rng)); };
}

TEST(StoppingCriterion, ConstantStopsAtOnceOnOneLevel) {
  const auto o = drive([](size_t, size_t) { return 250e-6; });
  EXPECT_TRUE(reached_precision(o.reason));
  EXPECT_LE(o.batches, 10u);
  EXPECT_EQ(o.stats.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(o.stats.median, 250e-6);
}

TEST(StoppingCriterion, GaussianNoiseConvergesNearTheLevel) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto o = drive(gaussian(100e-6, 0.01, seed));
    EXPECT_TRUE(reached_precision(o.reason)) << stop_reason_name(o.reason);
    EXPECT_EQ(o.stats.groups.size(), 1u) << "seed " << seed;
    EXPECT_NEAR(o.stats.median, 100e-6, 0.005 * 100e-6);
  }
}

TEST(StoppingCriterion, ADriftNeverCountsAsStable) {
  // +1% per batch, 0.1% noise: batch medians never settle, the pooled noise grows slower and slower.
  auto noise = gaussian(1.0, 0.001, 3);
  const auto o = drive([&](size_t b, size_t i) { return 100e-6 * (1 + 0.01 * static_cast<double>(b)) * noise(b, i); });
  EXPECT_EQ(o.reason, StopReason::TimeLimit);
  EXPECT_FALSE(reached_precision(o.reason));
}

TEST(StoppingCriterion, ClockRampIsWaitedOut) {
  // The first 6 batches run slow and speed up (clocks ramping), then 250 us with 0.2% noise.
  auto noise = gaussian(1.0, 0.002, 4);
  const auto o = drive([&](size_t b, size_t i) {
    const double ramp = b < 6 ? 1.0 + 0.5 * (6 - static_cast<double>(b)) / 6 : 1.0;
    return 250e-6 * ramp * noise(b, i);
  });
  EXPECT_TRUE(reached_precision(o.reason)) << stop_reason_name(o.reason);
  EXPECT_GE(o.batches, 10u) << "stopped before the ramp had settled: " << stop_reason_name(o.reason);
  EXPECT_NEAR(o.stats.median, 250e-6, 0.01 * 250e-6);
}

TEST(StoppingCriterion, TwoInterleavedGroupsAreNeverStable) {
  // 60% at 250 us, 40% at 607 us, mixed within every batch: batch medians agree (the old stable-median
  // stop fired), yet this is no level.
  for (unsigned seed = 1; seed <= 10; ++seed) {
    auto rng = std::make_shared<std::mt19937_64>(seed);
    auto noise = gaussian(1.0, 0.002, seed + 100);
    const auto o = drive([&](size_t b, size_t i) {
      const bool slow = std::uniform_real_distribution<double>()(*rng) < 0.4;
      return (slow ? 607e-6 : 250e-6) * noise(b, i);
    });
    EXPECT_EQ(o.reason, StopReason::MultiGroup) << stop_reason_name(o.reason);
    ASSERT_EQ(o.stats.groups.size(), 2u);
    EXPECT_NEAR(o.stats.groups[0].share, 0.6, 0.06);
    EXPECT_NEAR(o.stats.groups[0].median, 250e-6, 0.01 * 250e-6);
    EXPECT_NEAR(o.stats.groups[1].median, 607e-6, 0.01 * 607e-6);
  }
}

TEST(StoppingCriterion, GroupsInPhasesAreFoundToo) {
  // Whole batches switch level: 2 fast, 1 slow, repeating. (A slow phase that starts only after the
  // rule has stopped cannot be seen by any rule: the reported groups are what was sampled.)
  auto noise = gaussian(1.0, 0.002, 9);
  const auto o = drive([&](size_t b, size_t i) { return (b % 3 < 2 ? 250e-6 : 460e-6) * noise(b, i); });
  EXPECT_FALSE(o.reason == StopReason::LowNoise || o.reason == StopReason::NoiseConverged ||
               o.reason == StopReason::StableMedian)
      << stop_reason_name(o.reason);
  EXPECT_EQ(o.stats.groups.size(), 2u);
}

TEST(StoppingCriterion, RareSlowSamplesAreATailNotAGroup) {
  // 2% of samples twice as slow (a preempted dispatch now and then): one group, a normal stop.
  auto rng = std::make_shared<std::mt19937_64>(5);
  auto noise = gaussian(1.0, 0.003, 6);
  const auto o = drive([&](size_t b, size_t i) {
    return 100e-6 * noise(b, i) * (std::uniform_real_distribution<double>()(*rng) < 0.02 ? 2.0 : 1.0);
  });
  EXPECT_TRUE(reached_precision(o.reason)) << stop_reason_name(o.reason);
  EXPECT_EQ(o.stats.groups.size(), 1u);
}

TEST(SampleGroups, ThreeLevelsAndTheirShares) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> n(0, 0.002);
  std::vector<double> s;
  for (int i = 0; i < 500; ++i) s.push_back(250e-6 * (1 + n(rng)));
  for (int i = 0; i < 300; ++i) s.push_back(450e-6 * (1 + n(rng)));
  for (int i = 0; i < 200; ++i) s.push_back(607e-6 * (1 + n(rng)));
  const auto groups = find_groups(s);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_NEAR(groups[0].share, 0.5, 1e-9);
  EXPECT_NEAR(groups[1].share, 0.3, 1e-9);
  EXPECT_NEAR(groups[2].median, 607e-6, 0.005 * 607e-6);
  EXPECT_EQ(groups[0].count + groups[1].count + groups[2].count, s.size());
}

TEST(SampleGroups, WideNoiseIsOneGroup) {
  std::mt19937_64 rng(8);
  std::lognormal_distribution<double> heavy(std::log(100e-6), 0.15);  // lavapipe-like spread
  std::vector<double> s;
  for (int i = 0; i < 2000; ++i) s.push_back(heavy(rng));
  EXPECT_EQ(find_groups(s).size(), 1u);
}

TEST(SampleGroups, TooFewSamplesAreNeverSplit) {
  EXPECT_EQ(find_groups({1, 1, 1, 2, 2, 2}).size(), 1u);
}

TEST(ChunkMedians, TimeOrderedChunks) {
  std::vector<double> s;
  for (int i = 0; i < 100; ++i) s.push_back(i);
  const auto m = chunk_medians(s, 10);
  ASSERT_EQ(m.size(), 10u);
  EXPECT_DOUBLE_EQ(m[0], 4.5);
  EXPECT_DOUBLE_EQ(m[9], 94.5);
  EXPECT_EQ(chunk_medians({1, 2, 3}, 10).size(), 3u);  // never more chunks than samples
}

}  // namespace
