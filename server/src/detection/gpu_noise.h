// A GPU's run-to-run noise at each of its runs, relative to each series' own, measured on all its series at once.
// A runner 4x noisier moves every series' differences about 4x from its first run; one series alone, with a
// handful of runs on the new runner, cannot tell that from a step (issue 28: six runs of a 4x noisier runner look
// like a 3-5% step in about 1 series in 400, and each such alert failed verdicts). Pure: no I/O.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace shaderwatch::detect {

struct RunValue {
  std::int64_t run_id = 0;
  double log_value = 0;  // detect::log_value of its ns
};

// Runs seen by fewer series than this get no factor (too few for a median to mean anything).
inline constexpr std::size_t kGpuNoiseMinSeries = 20;

// For each run (by id) that at least kGpuNoiseMinSeries of `series` (a GPU's, each in time order) step into from
// a previous run: the median over those series of |difference - the differences' median| in units of the series'
// typical difference (its median absolute difference), scaled so that unchanged noise gives 1. Taking out the
// median difference leaves a machine step (all series alike) out of it. Relative to the series' typical difference,
// a noisier stretch shows less the more of the window it holds (4x: about 3x at a quarter, 2x at half); the
// detector takes the factor times the same typical noise, so the product is the run's noise either way.
std::unordered_map<std::int64_t, double> gpu_noise_by_run(const std::vector<std::vector<RunValue>>& series);

}  // namespace shaderwatch::detect
