#include "detection/gpu_noise.h"

#include <algorithm>
#include <cmath>

#include "common/statistics.h"

namespace shaderwatch::detect {

std::unordered_map<std::int64_t, double> gpu_noise_by_run(const std::vector<std::vector<RunValue>>& series) {
  // Runs by column, in the order first met (a GPU's series mostly share their runs); per column each series' log
  // difference into that run and the series' typical |difference|.
  std::unordered_map<std::int64_t, std::size_t> column;
  std::vector<std::int64_t> run_of;
  // The previous series' run ids and columns by position: a GPU's series mostly hold the same runs, so the lookup
  // is mostly a comparison.
  std::vector<std::int64_t> last_runs;
  std::vector<std::size_t> last_columns;
  std::vector<std::vector<double>> diffs, scales;
  std::vector<double> y, abs_d;
  for (const auto& s : series) {
    if (s.size() < 3) continue;
    y.resize(s.size());
    abs_d.resize(s.size() - 1);
    for (std::size_t j = 0; j < s.size(); ++j) y[j] = s[j].log_value;
    for (std::size_t j = 1; j < y.size(); ++j) abs_d[j - 1] = std::fabs(y[j] - y[j - 1]);
    // |N(0, s)| has its median at 0.6745 s.
    const double scale = stats::upper_median_in_place(abs_d) / 0.6745;
    if (!(scale > 0)) continue;
    last_runs.resize(s.size(), -1);
    last_columns.resize(s.size());
    for (std::size_t j = 1; j < s.size(); ++j) {
      if (last_runs[j] != s[j].run_id) {
        const auto [it, fresh] = column.try_emplace(s[j].run_id, diffs.size());
        if (fresh) {
          run_of.push_back(s[j].run_id);
          diffs.emplace_back().reserve(series.size());
          scales.emplace_back().reserve(series.size());
        }
        last_runs[j] = s[j].run_id;
        last_columns[j] = it->second;
      }
      diffs[last_columns[j]].push_back(y[j] - y[j - 1]);
      scales[last_columns[j]].push_back(scale);
    }
  }
  std::unordered_map<std::int64_t, double> factor;
  std::vector<double> v;
  for (std::size_t c = 0; c < diffs.size(); ++c) {
    if (diffs[c].size() < kGpuNoiseMinSeries) continue;
    v = diffs[c];
    const double common = stats::upper_median_in_place(v);
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = std::fabs(diffs[c][k] - common) / scales[c][k];
    factor[run_of[c]] = stats::upper_median_in_place(v) / 0.6745;
  }
  return factor;
}

}  // namespace shaderwatch::detect
