#include "run/stopping_criterion.h"

#include <algorithm>
#include <cmath>

namespace shaderwatch {

namespace {
constexpr size_t kWindow = 4;              // batches the convergence rules look back over
constexpr double kNoiseConvergence = 0.02;  // noise estimate within 2% of itself over the window
constexpr double kShareSettled = 0.05;     // group shares within 5 points over the window
constexpr size_t kTrendSamples = 200;      // or a tenth of min_gpu_seconds, for the trend rules
}  // namespace

std::string stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::LowNoise: return "low-noise";
    case StopReason::NoiseConverged: return "noise-converged";
    case StopReason::StableMedian: return "stable-median";
    case StopReason::MultiGroup: return "multi-group";
    case StopReason::TimeLimit: return "time-limit";
  }
  return "unknown";
}

void StoppingCriterion::add_batch(const std::vector<double>& seconds) {
  if (seconds.empty()) return;
  samples_.insert(samples_.end(), seconds.begin(), seconds.end());
  stats_ = summarize(samples_);
  batch_medians_.push_back(median_of(seconds));
  noise_history_.push_back(stats_.rel_stdev);
  std::vector<double> shares;
  for (const auto& g : stats_.groups) shares.push_back(g.share);
  share_history_.push_back(std::move(shares));
}

// The batch medians of the last window moved away from those of the window before by more than the
// stable-median spread: a clock ramp or a drift, whose pooled noise can look converged.
bool StoppingCriterion::drifting() const {
  if (batch_medians_.size() < 2 * kWindow) return false;
  const auto end = batch_medians_.end();
  const double recent = median_of({end - kWindow, end});
  const double before = median_of({end - 2 * kWindow, end - kWindow});
  return std::abs(recent - before) > options_.target_batch_spread * std::max(recent, before);
}

bool StoppingCriterion::groups_settled() const {
  if (share_history_.size() < kWindow) return false;
  const auto& last = share_history_.back();
  for (size_t i = share_history_.size() - kWindow; i < share_history_.size(); ++i) {
    const auto& shares = share_history_[i];
    if (shares.size() != last.size()) return false;
    for (size_t g = 0; g < shares.size(); ++g) {
      if (std::abs(shares[g] - last[g]) > kShareSettled) return false;
    }
  }
  return true;
}

std::optional<StopReason> StoppingCriterion::should_stop(double wall_seconds) {
  if (samples_.size() >= options_.min_samples) {
    // The trend rules judge a window of batches; they need its samples to be many or long.
    const bool enough_for_trend = samples_.size() >= kTrendSamples || stats_.gpu_seconds >= 0.1 * options_.min_gpu_seconds;
    if (stats_.multi_group()) {
      // Never "stable": stop once the groups and their shares have held over the window.
      if (enough_for_trend && groups_settled()) return StopReason::MultiGroup;
    } else if (!drifting()) {
      if (stats_.rel_stdev < options_.target_rel_stdev && stats_.gpu_seconds >= options_.min_gpu_seconds) {
        return StopReason::LowNoise;
      }
      if (noise_history_.size() >= kWindow && enough_for_trend) {
        const auto [lo, hi] = std::minmax_element(noise_history_.end() - kWindow, noise_history_.end());
        if (*hi - *lo <= kNoiseConvergence * *hi) return StopReason::NoiseConverged;
        const auto [mlo, mhi] = std::minmax_element(batch_medians_.end() - kWindow, batch_medians_.end());
        if (*mhi <= *mlo * (1 + options_.target_batch_spread)) return StopReason::StableMedian;
      }
    }
    if (wall_seconds >= options_.max_wall_seconds) return StopReason::TimeLimit;
  }
  return std::nullopt;
}

}  // namespace shaderwatch
