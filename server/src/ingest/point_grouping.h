// A run's rows grouped into points, one per benchmark name: pure, before any lock is taken.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ingest/ingest_parse.h"

namespace shaderwatch {

struct PointRows {
  std::vector<double> reps;  // the repetitions' times (ns); the aggregates' median or mean where there are none
  int n_errors = 0;
  std::string error_message, label;
  std::string spirv;  // its kernel's SPIR-V hash (Row::spirv), where a measured row named one
  bool has_iteration = false;
};

// Rows of expected outcomes and of kernels the device cannot run are left out: stored as raw rows, they are
// neither a correctness failure nor a point of a series (contract/shaderwatch/result_contract.h).
std::map<std::string, PointRows> group_points(const std::vector<Row>& rows);

}  // namespace shaderwatch
