// A run's rows grouped by benchmark name, pure, before any lock is taken: each benchmark's rows packed as the
// store keeps them (common/stored_rows.h), and its point.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ingest/ingest_parse.h"
#include "common/rows_summary.h"
#include "common/stored_rows.h"

namespace shaderwatch {

struct PointRows {
  std::vector<double> reps;  // the repetitions' times (ns): repetition_times() of the benchmark's rows
  int n_errors = 0;
  std::string error_message;
  std::string spirv;  // its kernel's SPIR-V hash (Row::spirv), where a measured row named one
};

struct BenchmarkRowGroup {
  PackedRows packed;    // every row of the benchmark
  RowsSummary summary;  // what the pages read of them
  // Its point; none where every row is an expected outcome or a kernel the device cannot run: stored as raw
  // rows, they are neither a correctness failure nor a point of a series (contract/shaderwatch/result_contract.h).
  std::optional<PointRows> point;
};

// A row as stored (its counters parsed back from their text).
StoredRow stored_row(const Row& r);
std::map<std::string, BenchmarkRowGroup> group_rows(const std::vector<Row>& rows);

}  // namespace shaderwatch
