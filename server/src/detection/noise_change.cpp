#include "detection/noise_change.h"

#include <algorithm>
#include <cmath>

namespace shaderwatch::detect {

namespace {
// The log of each |first difference|, floored kLogFloor below their median: the log of a normal difference has a
// long tail towards 0 (one difference in 20 is under a tenth of the median), which alone made splits with a
// few quiet differences on one side score as noise changes; floored, the few that low count as a tenth.
constexpr double kLogFloor = 2.5;
std::vector<double> log_abs_diffs(const std::vector<double>& y) {
  std::vector<double> l;
  for (std::size_t j = 1; j < y.size(); ++j) l.push_back(std::log(std::max(std::fabs(y[j] - y[j - 1]), 1e-12)));
  const double floor = stats::median(l) - kLogFloor;
  for (double& v : l) v = std::max(v, floor);
  return l;
}
}  // namespace

std::optional<NoiseChange> noise_change(const std::vector<Point>& series, const Params& p) {
  return noise_change(kept_runs(series, p), p);
}

std::optional<NoiseChange> noise_change(const KeptRuns& kept, const Params& p) {
  const std::size_t n = kept.y.size();
  if (p.min_segment == 0 || n < std::max(p.min_history, 2 * p.min_segment + 2)) return std::nullopt;
  // l[j]: log |y[j+1] - y[j]|, with prefix sums of it and its square.
  const std::size_t m = n - 1;
  std::vector<double> sum(m + 1, 0.0), sq(m + 1, 0.0);
  const std::vector<double> l = log_abs_diffs(kept.y);
  for (std::size_t j = 0; j < m; ++j) {
    sum[j + 1] = sum[j] + l[j];
    sq[j + 1] = sq[j] + l[j] * l[j];
  }
  std::optional<NoiseChange> best;
  // A quieter stretch needs twice the runs: a few runs close together by chance are far more common than a few
  // far apart (half the false noise changes of an A/A fleet were six quiet runs).
  for (std::size_t k = p.min_segment; k + p.min_segment <= m; ++k) {
    const double nl = static_cast<double>(k), nr = static_cast<double>(m - k);
    const double ml = sum[k] / nl, mr = (sum[m] - sum[k]) / nr;
    // Pooled variance of the logs around their side's mean (pi^2 / 8 for normal noise).
    const double ss = (sq[k] - nl * ml * ml) + (sq[m] - sq[k] - nr * mr * mr);
    const double var = std::max(ss / (nl + nr - 2), 1e-12);
    const double score = std::fabs(mr - ml) / std::sqrt(var * (1 / nl + 1 / nr));
    if ((mr < ml ? m - k : k) < 2 * p.min_segment) continue;
    if (!best || score > best->score) {
      NoiseChange c;
      c.index = kept.at[k + 1];  // difference k is the first of the new noise: it reaches point k + 1
      c.n_before = k + 1;
      c.n_after = n - (k + 1);
      c.ratio = std::exp(mr - ml);
      c.score = score;
      best = c;
    }
  }
  if (!best || best->score < p.noise_z || std::fabs(std::log(best->ratio)) < std::log(p.noise_ratio)) return std::nullopt;
  const std::size_t split = best->n_before;
  best->before_rel = run_noise({kept.y.begin(), kept.y.begin() + static_cast<std::ptrdiff_t>(split)});
  best->after_rel = run_noise({kept.y.begin() + static_cast<std::ptrdiff_t>(split), kept.y.end()});
  return best;
}

SiblingNoise sibling_noise(const std::vector<double>& before, const std::vector<double>& after, double own_ratio,
                           const Params& p) {
  SiblingNoise s;
  if (before.size() < p.min_segment || after.size() < p.min_segment) return s;
  const auto logs = [](const std::vector<double>& v) {
    std::vector<double> out;
    for (double x : v) out.push_back(std::log(std::max(x, 1e-6)));
    return out;
  };
  const double nb = run_noise(logs(before)), na = run_noise(logs(after));
  if (nb <= 0 || na <= 0) return s;
  s.present = true;
  s.ratio = na / nb;
  const double own = std::log(own_ratio), theirs = std::log(s.ratio);
  s.changed = (theirs > 0) == (own > 0) && std::fabs(theirs) >= 0.5 * std::fabs(own);
  return s;
}

}  // namespace shaderwatch::detect
