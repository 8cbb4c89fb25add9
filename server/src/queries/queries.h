// The read side: every answer of the JSON API, every parameter validated (ClientError 400, 404 for
// unknown ids), every statement bound, each on a pooled reader. The write side's answers (a stored run,
// the alerts it raised, a triaged alert) are read here too, from what it wrote. Every answer is a value
// (queries/*_answer.h); its JSON is made at the API's edge only (render/api_json.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/client_error.h"
#include "common/worker_pool.h"
#include "detection/analysis.h"
#include "detection/gate_config.h"
#include "detection/what_ran.h"
#include "queries/alert_answer.h"
#include "queries/browse_answer.h"
#include "queries/compare_answer.h"
#include "queries/dashboard_answer.h"
#include "queries/verdict_cache.h"
#include "queries/rankings_answer.h"
#include "queries/run_answer.h"
#include "queries/series_answer.h"
#include "queries/verdict_answer.h"
#include "queries/vocabulary_answer.h"
#include "detection/detect.h"
#include "storage/database.h"

namespace shaderwatch {

struct QueryOptions {
  detect::Params detect;
  std::string main_branch = "main";
  analysis::GateParams gate;
  analysis::GateConfig gate_config;  // per branch and GPU (StoreOptions::gate_config)
  bool gate_cpu_timings = false;  // judge a CPU device's timings (lavapipe) too, not only its correctness
  WhatRanCache* what_ran = nullptr;  // what runs ran as, kept between judgements (none: read each time)
};

class Queries {
 public:
  Queries(Database& db, QueryOptions opts)
      : db_(db), opts_(std::move(opts)), judges_(std::max<std::size_t>(1, db.reader_count() - 1)) {}

  GpuList gpus(const Params& q);
  DriverList drivers(const Params& q);
  BenchmarkPage benchmarks(const Params& q);
  RunPage runs(const Params& q);
  RunDetail run(const std::string& run_id);
  // The raw rows of a run's document, in document order (repetitions and aggregates).
  RunResults run_results(const std::string& run_id, const Params& q);
  SeriesPage series_list(const Params& q);
  Series series(std::int64_t id, const Params& q);
  AlertPage alerts(const Params& q);
  Alert alert(std::int64_t id);
  Comparison compare(const Params& q);
  Verdict verdict(const std::string& run_id);
  // The run's verdict where one is kept for what it would be judged on now; none where it would be judged.
  std::optional<Verdict> kept_verdict(const std::string& run_id);
  Rankings rankings(const Params& q);
  // The dashboard's overview: every GPU (drivers, open alerts by kind, last run with its verdict) and
  // the latest runs with their verdicts.
  Overview summary(const Params& q);
  // Kernels x (GPU, driver): each benchmark's outcome in the latest run of each pair.
  CorrectnessMatrix correctness(const Params& q);
  // The names the API uses for alert states, kinds, causes and outcomes, so clients spell none by hand.
  Vocabulary vocabulary();

  // A posted run's answer: the run and the alerts its ingest wrote.
  IngestAnswer ingest_answer(std::int64_t run_pk, const std::vector<std::int64_t>& alert_ids);

 private:
  Database& db_;
  QueryOptions opts_;
  std::shared_ptr<VerdictCache> verdicts_ = std::make_shared<VerdictCache>();
  // Beside the asking thread, the overview's runs judged at once (each verdict on a reader of its own), and a
  // verdict's benchmarks.
  WorkerPool judges_;
};

}  // namespace shaderwatch
