// GET /api/v1/compare as a value: two runs, benchmark by benchmark.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "detection/analysis.h"

namespace shaderwatch {

struct CompareRow {
  std::string benchmark;
  double base_ns = 0, contender_ns = 0;  // NaN where the run has no time
  std::size_t base_repetitions = 0, contender_repetitions = 0;
  analysis::CompareResult result;
};

struct Comparison {
  std::string base, contender;
  analysis::CompareParams params;
  std::vector<CompareRow> benchmarks;  // in both runs, by name
  std::vector<std::string> only_in_base, only_in_contender;
  std::optional<double> geomean_delta_pct;  // over the pairs with a time on both sides
};

}  // namespace shaderwatch
