#include "run/sample_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shaderwatch {

namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

// 1.4826 MAD of sorted[lo, hi): a standard deviation that a few far samples cannot inflate.
double robust_sigma(const std::vector<double>& sorted, size_t lo, size_t hi) {
  const std::vector<double> part(sorted.begin() + static_cast<std::ptrdiff_t>(lo), sorted.begin() + static_cast<std::ptrdiff_t>(hi));
  const double m = quantile(part, 0.5);
  std::vector<double> dev(part.size());
  std::transform(part.begin(), part.end(), dev.begin(), [m](double v) { return std::abs(v - m); });
  std::sort(dev.begin(), dev.end());
  return 1.4826 * quantile(dev, 0.5);
}

// Splits log-times sorted[lo, hi) at the widest gap that separates two modes (see sample_stats.h), then
// each side again; appends the [lo, hi) ranges of the groups found, in order.
void split(const std::vector<double>& sorted, size_t lo, size_t hi, size_t min_side, size_t& budget,
           std::vector<std::pair<size_t, size_t>>& out) {
  if (budget > 0 && hi - lo >= 2 * min_side) {
    std::vector<size_t> cuts;  // index of the first sample right of the gap
    for (size_t i = lo + min_side; i <= hi - min_side; ++i) {
      if (sorted[i] - sorted[i - 1] >= std::log1p(kGroupMinGap)) cuts.push_back(i);
    }
    std::sort(cuts.begin(), cuts.end(), [&](size_t a, size_t b) { return sorted[a] - sorted[a - 1] > sorted[b] - sorted[b - 1]; });
    for (size_t i : cuts) {
      const double gap = sorted[i] - sorted[i - 1];
      if (gap >= kGroupGapFactor * std::max(robust_sigma(sorted, lo, i), robust_sigma(sorted, i, hi))) {
        --budget;
        split(sorted, lo, i, min_side, budget, out);
        split(sorted, i, hi, min_side, budget, out);
        return;
      }
    }
  }
  out.emplace_back(lo, hi);
}

}  // namespace

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return quantile(values, 0.5);
}

std::vector<SampleGroup> find_groups(const std::vector<double>& seconds) {
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.empty()) return {};
  std::vector<std::pair<size_t, size_t>> ranges;
  if (sorted.size() < kGroupMinSamples || sorted.front() <= 0) {
    ranges.emplace_back(0, sorted.size());
  } else {
    std::vector<double> logs(sorted.size());
    std::transform(sorted.begin(), sorted.end(), logs.begin(), [](double v) { return std::log(v); });
    const size_t min_side = std::max<size_t>(3, static_cast<size_t>(std::ceil(kGroupMinShare * static_cast<double>(sorted.size()))));
    size_t budget = kMaxGroups - 1;
    split(logs, 0, logs.size(), min_side, budget, ranges);
  }
  std::vector<SampleGroup> groups;
  for (const auto& [lo, hi] : ranges) {
    const std::vector<double> part(sorted.begin() + static_cast<std::ptrdiff_t>(lo), sorted.begin() + static_cast<std::ptrdiff_t>(hi));
    groups.push_back({static_cast<double>(part.size()) / static_cast<double>(sorted.size()), quantile(part, 0.5), part.front(),
                      part.back(), part.size()});
  }
  return groups;
}

SampleStats summarize(const std::vector<double>& seconds) {
  SampleStats s;
  s.count = seconds.size();
  if (seconds.empty()) return s;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  s.median = quantile(sorted, 0.5);
  s.p25 = quantile(sorted, 0.25);
  s.p75 = quantile(sorted, 0.75);
  s.min = sorted.front();
  s.gpu_seconds = std::accumulate(sorted.begin(), sorted.end(), 0.0);
  s.mean = s.gpu_seconds / static_cast<double>(sorted.size());
  double var = 0;
  for (double x : sorted) var += (x - s.mean) * (x - s.mean);
  const double stdev = sorted.size() > 1 ? std::sqrt(var / static_cast<double>(sorted.size() - 1)) : 0.0;
  s.rel_stdev = s.mean > 0 ? stdev / s.mean : 0.0;
  s.groups = find_groups(seconds);
  return s;
}

namespace {
// `of` applied to each of `count` contiguous, nearly equal chunks of the samples, in time order.
std::vector<double> per_chunk(const std::vector<double>& seconds, size_t count,
                              double (*of)(std::vector<double>::const_iterator, std::vector<double>::const_iterator)) {
  count = std::min(count, seconds.size());
  std::vector<double> values;
  for (size_t k = 0; k < count; ++k) {
    values.push_back(of(seconds.begin() + static_cast<std::ptrdiff_t>(k * seconds.size() / count),
                        seconds.begin() + static_cast<std::ptrdiff_t>((k + 1) * seconds.size() / count)));
  }
  return values;
}
}  // namespace

std::vector<double> chunk_medians(const std::vector<double>& seconds, size_t count) {
  return per_chunk(seconds, count, [](auto lo, auto hi) { return median_of({lo, hi}); });
}

std::vector<double> chunk_means(const std::vector<double>& seconds, size_t count) {
  return per_chunk(seconds, count,
                   [](auto lo, auto hi) { return std::accumulate(lo, hi, 0.0) / static_cast<double>(hi - lo); });
}

}  // namespace shaderwatch
