#pragma once
// When a benchmark has sampled enough (after nvbench's stopping criteria): fed batches of timing samples
// in time order, it says whether to stop and why. Pure: the caller passes the wall time, so synthetic
// sample streams test it (tests/stopping_criterion_test.cpp).
#include <optional>
#include <string>
#include <vector>

#include "run/sample_stats.h"

namespace shaderwatch {

struct StopOptions {
  size_t min_samples = 10;
  double min_gpu_seconds = 0.5;        // of timed spans, for the low-noise stop (the others: a tenth, or 200 samples)
  double target_rel_stdev = 0.005;     // low-noise: relative stdev under this
  double target_batch_spread = 0.005;  // stable-median: the last batches' medians within this of each other
  double max_wall_seconds = 15;
};

enum class StopReason {
  LowNoise,        // relative stdev under target with the minimum GPU time
  NoiseConverged,  // the noise estimate stopped moving: more samples would not make it smaller
  StableMedian,    // the last batches agree on the median
  MultiGroup,      // two or more groups whose shares have settled: reported as groups, never as one level
  TimeLimit,       // none of the above within max_wall_seconds: the precision was not reached
};
std::string stop_reason_name(StopReason reason);  // "low-noise", "noise-converged", ...
// Whether the reason means the estimate reached its precision (every reason but the time limit).
inline bool reached_precision(StopReason reason) { return reason != StopReason::TimeLimit; }

class StoppingCriterion {
 public:
  explicit StoppingCriterion(StopOptions options) : options_(options) {}

  void add_batch(const std::vector<double>& seconds);
  // After each batch: the reason to stop now, or nothing to go on sampling. Never before min_samples.
  std::optional<StopReason> should_stop(double wall_seconds);

  const std::vector<double>& samples() const { return samples_; }  // every sample, in time order
  const SampleStats& stats() const { return stats_; }

 private:
  bool drifting() const;
  bool groups_settled() const;

  StopOptions options_;
  std::vector<double> samples_;
  SampleStats stats_;
  std::vector<double> batch_medians_, noise_history_;
  std::vector<std::vector<double>> share_history_;  // group shares after each batch
};

}  // namespace shaderwatch
