#include "detection/gpu_noise.h"

#include <algorithm>
#include <cmath>

#include "common/statistics.h"

namespace shaderwatch::detect {

std::unordered_map<std::int64_t, double> gpu_noise_by_run(const std::vector<std::vector<RunValue>>& series) {
  // Per run: each series' log difference into it and that series' noise.
  struct Diff {
    double d, scale;
  };
  std::unordered_map<std::int64_t, std::vector<Diff>> into;
  std::vector<double> y;
  for (const auto& s : series) {
    if (s.size() < 3) continue;
    y.clear();
    for (const auto& r : s) y.push_back(std::log(std::max(r.value, 1e-6)));
    const double scale = stats::diff_mad_sigma(y) * std::sqrt(2.0);  // the typical |difference|'s sigma
    if (!(scale > 0)) continue;
    for (std::size_t j = 1; j < y.size(); ++j) into[s[j].run_id].push_back({y[j] - y[j - 1], scale});
  }
  std::unordered_map<std::int64_t, double> factor;
  std::vector<double> v;
  for (const auto& [run_id, diffs] : into) {
    if (diffs.size() < kGpuNoiseMinSeries) continue;
    v.clear();
    for (const auto& x : diffs) v.push_back(x.d);
    const double common = stats::median(v);
    v.clear();
    for (const auto& x : diffs) v.push_back(std::fabs(x.d - common) / x.scale);
    // The median |N(0, 1)| is 0.6745.
    factor[run_id] = stats::median(v) / 0.6745;
  }
  return factor;
}

}  // namespace shaderwatch::detect
