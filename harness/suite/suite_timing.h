#pragma once
// Where a benchmark suite's wall time went, phase by phase, printed at its end: the suite's run time is
// a target (README), and this says which phase to cut.
#include <chrono>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace shaderwatch {

class SuiteTiming {
 public:
  using Clock = std::chrono::steady_clock;

  // Adds the wall time since `since` to `phase` and returns now, to chain phases.
  Clock::time_point add(const std::string& phase, Clock::time_point since);
  void add_seconds(const std::string& phase, double seconds);
  // Per benchmark: its wall time, kept for the slowest few.
  void add_benchmark(const std::string& name, double seconds) { benchmarks_.push_back({seconds, name}); }

  // "phase 12.3 s (45%)" lines in the order phases were first added, then the `slowest` slowest benchmarks.
  void print(std::ostream& out, double total_seconds, size_t slowest = 5) const;

 private:
  std::map<std::string, double> seconds_;
  std::vector<std::string> order_;
  std::vector<std::pair<double, std::string>> benchmarks_;
};

}  // namespace shaderwatch
