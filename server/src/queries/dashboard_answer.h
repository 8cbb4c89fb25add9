// The dashboard's own answers as values: the overview (GET /api/v1/summary) and the correctness matrix
// (GET /api/v1/correctness).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "queries/answer_common.h"
#include "queries/run_answer.h"
#include "queries/run_counters.h"

namespace shaderwatch {

// What the overview shows of a verdict: its outcome, the counts behind it, and the benchmarks to look at.
struct VerdictBrief {
  bool fail = false;
  std::size_t correctness = 0, regressions = 0, slowdowns = 0, suspects = 0, skipped = 0;
  std::string history;               // the coverage line
  std::vector<std::string> failing;  // the first few failing benchmarks
  std::size_t failing_total = 0;
};

struct RunWithVerdict {
  RunSummary run;
  VerdictBrief verdict;
};

// A driver is its build (driver_identity.h): runs that differ only in driver_info or UUID are two.
struct DriverBuild {
  std::string driver_name, driver_version, driver_info, driver_uuid;
  std::string driver;  // its label
  std::int64_t runs = 0;
  std::string first_seen, last_seen;
};

struct GpuOverview {
  GpuRef gpu;
  std::int64_t runs = 0;
  std::vector<DriverBuild> drivers;
  std::map<std::string, std::int64_t> open_alerts;  // by kind
  std::optional<RunWithVerdict> last_run;
};

struct Overview {
  std::vector<GpuOverview> gpus;
  std::vector<RunWithVerdict> latest_runs;
};

// One column per (GPU, driver): its latest run on the branch.
struct CorrectnessColumn {
  std::string run_id, started_at, driver_name, driver_version, driver;
  GpuRef gpu;
  std::int64_t benchmarks_from_older_runs = 0;  // cells an older run of the group filled
};

struct CorrectnessCell {
  RowStatus outcome = RowStatus::Pass;
  std::string message, run_id;
  std::optional<std::int64_t> series_id;
};

struct CorrectnessRow {
  std::string benchmark;
  std::vector<std::optional<CorrectnessCell>> cells;  // one per column; none where the column has no result
};

struct CorrectnessMatrix {
  std::string branch;
  std::vector<CorrectnessColumn> columns;
  std::vector<CorrectnessRow> rows;  // by benchmark name
  std::map<std::string, std::int64_t> counts;  // cells by outcome
};

}  // namespace shaderwatch
