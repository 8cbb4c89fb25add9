#include "suite/suite_timing.h"

#include <algorithm>
#include <cstdio>

namespace shaderwatch {

SuiteTiming::Clock::time_point SuiteTiming::add(const std::string& phase, Clock::time_point since) {
  const auto now = Clock::now();
  add_seconds(phase, std::chrono::duration<double>(now - since).count());
  return now;
}

void SuiteTiming::add_seconds(const std::string& phase, double seconds) {
  if (!seconds_.count(phase)) order_.push_back(phase);
  seconds_[phase] += seconds;
}

void SuiteTiming::print(std::ostream& out, double total_seconds, size_t slowest) const {
  char line[160];
  out << "time by phase:\n";
  for (const auto& phase : order_) {
    const double s = seconds_.at(phase);
    std::snprintf(line, sizeof line, "  %-28s %8.1f s  %5.1f%%\n", phase.c_str(), s,
                  total_seconds > 0 ? 100 * s / total_seconds : 0.0);
    out << line;
  }
  auto sorted = benchmarks_;
  std::sort(sorted.rbegin(), sorted.rend());
  if (sorted.size() > slowest) sorted.resize(slowest);
  if (!sorted.empty()) out << "slowest benchmarks:\n";
  for (const auto& [seconds, name] : sorted) {
    std::snprintf(line, sizeof line, "  %8.2f s  %s\n", seconds, name.c_str());
    out << line;
  }
}

}  // namespace shaderwatch
