#include "common/gbench_statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

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
// IEEE 754's totalOrder as an integer: for finite values the order of <, with -0.0 before 0.0; NaNs at the ends (a
// damaged pack's raw bytes can hold one, though ingest refuses them), so a sort by it is always well defined.
std::int64_t total_order(double x) {
  std::int64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b < 0 ? b ^ std::numeric_limits<std::int64_t>::max() : b;
}
// The middle value, or the two middle values' mean (Google Benchmark finds them with nth_element; the values are
// the same). Sorted by a total order, so no library's sort can leave a different zero in the middle.
double median(std::vector<double> v) {
  if (v.size() < 3) return mean(v);
  std::sort(v.begin(), v.end(), [](double a, double b) { return total_order(a) < total_order(b); });
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

std::optional<double> gbench_unit_multiplier(std::string_view time_unit) {
  if (time_unit == "ns") return 1e9;
  if (time_unit == "us") return 1e6;
  if (time_unit == "ms") return 1e3;
  if (time_unit == "s") return 1.0;
  return std::nullopt;
}

namespace {
// GetAdjustedRealTime / GetAdjustedCPUTime: no division where the iterations are 0.
double reported_time(double seconds, double multiplier, std::int64_t iterations) {
  const double t = seconds * multiplier;
  return iterations != 0 ? t / static_cast<double>(iterations) : t;
}
}  // namespace

std::optional<double> gbench_seconds(double reported, double multiplier, std::int64_t iterations) {
  if (!std::isfinite(reported)) return std::nullopt;
  const double near = iterations != 0 ? reported * static_cast<double>(iterations) / multiplier : reported / multiplier;
  if (!std::isfinite(near)) return std::nullopt;
  double below = near, above = near;
  if (reported_time(near, multiplier, iterations) == reported) return near;
  for (int step = 1; step <= 3; ++step) {
    below = std::nextafter(below, -HUGE_VAL);
    above = std::nextafter(above, HUGE_VAL);
    if (reported_time(below, multiplier, iterations) == reported) return below;
    if (reported_time(above, multiplier, iterations) == reported) return above;
  }
  return std::nullopt;
}

std::optional<double> gbench_time_aggregate(std::string_view aggregate_name, const std::vector<double>& seconds,
                                            std::int64_t repetitions, std::int64_t first_iterations,
                                            double multiplier, bool percentage) {
  const std::optional<double> statistic = gbench_statistic(aggregate_name, seconds);
  if (!statistic || percentage) return statistic;
  if (first_iterations == 0) return std::nullopt;
  const double rescaled = *statistic * (static_cast<double>(repetitions) / static_cast<double>(first_iterations));
  return reported_time(rescaled, multiplier, repetitions);
}

}  // namespace shaderwatch
