// A run as the API shows it: listed (GET /runs, the dashboard's last runs, a posted run's answer), whole
// (GET /runs/{id}: its points and the benchmarks it measured no time for) and its raw rows (/results).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "queries/alert_answer.h"
#include "queries/answer_common.h"
#include "queries/run_counters.h"

namespace shaderwatch {

struct DriverRef {
  std::string id, name, info, version, uuid;
};

struct RunSummary {
  std::string id, commit, branch, runner, job_url, started_at, received_at;
  DriverRef driver;
  std::string api_version, harness_revision, device_uuid, subgroup_size, host_name;
  std::int64_t results = 0;  // rows of its document
  GpuRef gpu;
  std::int64_t benchmarks = 0, failing_benchmarks = 0;
  // Coverage: a partial run (one size, a filter) is "34 of 348 benchmarks", the GPU's whole set.
  std::int64_t gpu_benchmarks = 0;
  std::string posted_by;
};

// GET /api/v1/runs: one page, newest first.
struct RunPage {
  std::vector<RunSummary> runs;
  std::int64_t limit = 0, offset = 0;
  std::optional<std::int64_t> next_offset;
};

// A benchmark's point in the run.
struct RunPointEntry {
  std::int64_t series_id = 0;
  std::string benchmark;
  std::optional<double> value_ns, min_ns, max_ns;
  std::int64_t repetitions = 0, errors = 0;
  std::string error_message;  // a flake's says how many checks failed first
  std::string label;
  std::optional<BenchmarkCounters> counters;  // where the run's rows carry them (counters.message: not shown)
  std::string limit;  // what bounds its kernel's time, contract::Limit's word; "" where the run did not say
};

// A benchmark with rows but no point: the negative control's expected outcome, a kernel the device could not run.
struct NotMeasuredEntry {
  std::string benchmark;
  RowStatus outcome = RowStatus::Pass;
  std::string error_message;
};

// What the driver compiled of one of the run's kernels.
struct KernelCompilation {
  std::string kernel;  // family/variant
  Compilation compiled;
};

// GET /api/v1/runs/{id}.
struct RunDetail {
  RunSummary run;
  std::vector<RunPointEntry> points;  // by benchmark name
  std::vector<NotMeasuredEntry> not_measured;
  std::vector<KernelCompilation> compiled;  // by kernel; none where the run did not say
};

// One raw row of the run's document.
struct ResultRow {
  std::int64_t index = 0;
  std::string benchmark, run_type;
  std::optional<std::string> aggregate_name;
  std::int64_t repetition_index = 0, repetitions = 0, threads = 0, iterations = 0;
  std::optional<double> real_ns, cpu_ns;
  std::string time_unit, label;
  bool error_occurred = false;
  std::string error_message;
  RowStatus outcome = RowStatus::Pass;
  nlohmann::json counters;  // the row's counters object as posted (its keys are the bench's, not the API's)
};

// GET /api/v1/runs/{id}/results: one page, in document order.
struct RunResults {
  std::string run_id;
  std::vector<ResultRow> results;
  std::int64_t limit = 0, offset = 0;
  std::optional<std::int64_t> next_offset;
  std::int64_t pruned_benchmarks = 0;  // benchmarks whose rows `prune` removed (their summaries remain)
};

// A posted run's answer: the run as stored and the alerts its ingest raised.
struct IngestAnswer {
  RunSummary run;
  std::vector<Alert> alerts;
};

}  // namespace shaderwatch
