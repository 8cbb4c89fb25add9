#include "common/gbench_statistics.h"

#include <algorithm>
#include <cmath>

namespace shaderwatch {

namespace {

// Left to right, from 0.0, as std::accumulate.
double sum(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s = s + x;
  return s;
}
double sum_of_squares(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s = s + x * x;
  return s;
}
double mean(const std::vector<double>& v) { return sum(v) * (1.0 / static_cast<double>(v.size())); }
// The middle value, or the two middle values' mean (Google Benchmark finds them with nth_element; the values are
// the same). Sorted by a total order, -0.0 before 0.0 (the values are finite: ingest refuses others), so no
// library's sort can leave a different zero in the middle.
double median(std::vector<double> v) {
  if (v.size() < 3) return mean(v);
  std::sort(v.begin(), v.end(), [](double a, double b) { return a < b || (a == b && std::signbit(a) && !std::signbit(b)); });
  const std::size_t n = v.size();
  if (n % 2 == 1) return v[n / 2];
  return (v[n / 2] + v[n / 2 - 1]) / 2.0;
}
double stddev(const std::vector<double>& v) {
  const double m = mean(v);
  if (v.size() == 1) return 0.0;
  const double n = static_cast<double>(v.size());
  const double avg_squares = sum_of_squares(v) * (1.0 / n);
  const double variance = n / (n - 1.0) * (avg_squares - m * m);
  return variance < 0.0 ? 0.0 : std::sqrt(variance);
}
double cv(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  return stddev(v) / mean(v);
}

}  // namespace

std::optional<double> gbench_statistic(std::string_view aggregate_name, const std::vector<double>& sample) {
  if (sample.empty()) return std::nullopt;
  if (aggregate_name == "mean") return mean(sample);
  if (aggregate_name == "median") return median(sample);
  if (aggregate_name == "stddev") return stddev(sample);
  if (aggregate_name == "cv") return cv(sample);
  return std::nullopt;
}

}  // namespace shaderwatch
