// The evidence a run's verdict is judged on (analysis::RunEvidence), read from the store in a few statements per
// run rather than several per benchmark: each loader reads one thing for every series of the run. Detection's one
// reader beside change_attribution: the verdict (queries_verdict.cpp) and the gate's alerts at ingest
// (run_detector.cpp) both judge what it loads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "detection/analysis.h"
#include "detection/detect.h"
#include "detection/run_evidence.h"
#include "detection/what_ran.h"
#include "storage/main_history.h"
#include "storage/series_names.h"
#include "storage/sql.h"

namespace shaderwatch {

struct JudgedRun {
  std::int64_t pk = 0, started_ms = 0, gpu_id = 0;
  std::string branch, merge_base;
  bool cpu_device = false;
  std::string gpu_name;  // the gate's per-GPU parameters match it
};
JudgedRun load_judged_run(sql::Conn& c, std::int64_t pk);

// When the GPU's main run `n` places from its newest (0: the newest) started; none where it has no more main runs.
// Where a window of the GPU's newest main runs begins.
std::optional<std::int64_t> main_run_started_ms(sql::Conn& c, std::int64_t gpu_id, const std::string& main_branch,
                                                std::size_t n);

// Main points strictly before (ms, pk) form the level a run is judged against.
struct LevelBound {
  std::int64_t ms = 0, pk = 0;
};

// The main branch's level this run is judged against: for a main run, its own series up to it; for a
// run on another branch, main's runs up to its merge base (the latest main run on this GPU at that
// commit), or main's latest level where the merge base is unknown or was not run here. `baseline`: what
// the answer says about it (none for a main run).
LevelBound level_bound(sql::Conn& c, const JudgedRun& run, const std::string& main_branch,
                       std::optional<VerdictBaseline>& baseline);

struct EvidenceParams {
  detect::Params detect;
  analysis::GateParams gate;
  std::string main_branch;
  bool gate_cpu_timings = false;  // judge a CPU device's timings too (QueryOptions::gate_cpu_timings)
  MainHistory* history = nullptr;  // the newest main points the process holds, read before the database (none: not)
  WhatRanCache* what_ran = nullptr;  // what the runs read last ran as (none: each judgement reads its runs)
  SeriesNames& names;  // the series' names the process keeps (Database::series_names)
};
// Every benchmark of the run with what the judge needs: failures with their history, else the level (and, on
// main, the open regressions with the values since their steps).
analysis::RunEvidence load_evidence(sql::Conn& c, const JudgedRun& run, const LevelBound& bound,
                                    const EvidenceParams& p);

}  // namespace shaderwatch
