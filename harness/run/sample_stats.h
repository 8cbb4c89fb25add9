#pragma once
// Statistics of a benchmark's timing samples: order statistics, spread, and the groups (modes) the
// samples fall into. Pure functions over seconds; no Vulkan, unit-tested with synthetic streams.
#include <cstddef>
#include <vector>

namespace shaderwatch {

// One mode of a sample distribution: its share of the samples and its level (median).
struct SampleGroup {
  double share = 0;  // 0..1
  double median = 0, min = 0, max = 0;
  size_t count = 0;
};

struct SampleStats {
  double median = 0, min = 0, p25 = 0, p75 = 0, mean = 0, rel_stdev = 0, gpu_seconds = 0;
  size_t count = 0;
  std::vector<SampleGroup> groups;  // fastest first; one group for a unimodal distribution
  bool multi_group() const { return groups.size() > 1; }
};

// Groups are separated where the sorted samples leave a gap at least kGroupGapFactor times the robust
// spread (1.4826 MAD) of the samples on either side, and at least kGroupMinGap relative; each group holds
// at least kGroupMinShare of the samples (rarer slow samples are a tail, not a mode). At most kMaxGroups.
inline constexpr double kGroupGapFactor = 4.0;
inline constexpr double kGroupMinGap = 0.02;
inline constexpr double kGroupMinShare = 0.05;
inline constexpr size_t kGroupMinSamples = 20;  // fewer samples: never split
inline constexpr size_t kMaxGroups = 4;

std::vector<SampleGroup> find_groups(const std::vector<double>& seconds);
SampleStats summarize(const std::vector<double>& seconds);

// The samples, in time order, cut into `count` contiguous chunks of (nearly) equal size; the median of
// each. These are what the benchmark reports as repetitions: a distribution for U tests, with drift and
// mode changes over the run visible as differences between chunks.
std::vector<double> chunk_medians(const std::vector<double>& seconds, size_t count);
std::vector<double> chunk_means(const std::vector<double>& seconds, size_t count);  // the same chunks' means

double median_of(std::vector<double> values);

}  // namespace shaderwatch
