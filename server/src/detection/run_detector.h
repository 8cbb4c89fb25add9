// Detection on ingest: after a run's commit, the correctness alerts it raises, the change points of the
// series it touched, and on main the single-run gate's failures, each with its attribution (detect.h,
// alert_lifecycle.h and analysis::judge decide; this loads the evidence and writes what they decide). Keeps
// each series' recent window cached between runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/worker_pool.h"
#include "detection/alert_lifecycle.h"
#include "detection/detect.h"
#include "detection/gate_config.h"
#include "detection/single_run_gate.h"
#include "detection/what_ran.h"
#include "ingest/run_writer.h"
#include "storage/database.h"
#include "storage/main_runs_follower.h"

namespace shaderwatch {

struct DetectorOptions {
  detect::Params detect;
  std::string main_branch = "main";  // only its runs form levels, change points and alerts
  // The verdict's gate (StoreOptions::gate, gate_cpu_timings): a main run's slowdown it fails is an alert.
  analysis::GateParams gate;
  analysis::GateConfig gate_config;  // per branch and GPU (StoreOptions::gate_config)
  bool gate_cpu_timings = false;
  WhatRanCache* what_ran = nullptr;  // what runs ran as, kept between judgements (none: read each time)
};

class RunDetector {
 public:
  RunDetector(Database& db, DetectorOptions opts) : db_(db), opts_(std::move(opts)) {}
  // The alerts the run raised or moved, in the order they were written. A detector failure does not lose
  // the run (it is stored): it is logged and tried again, up to three times.
  std::vector<std::int64_t> after_ingest(const WrittenRun& run);
  std::uint64_t detect_ns() const { return detect_ns_; }

 private:
  struct Window {
    struct Pt {  // a run's value only: detection judges runs, never their repetitions
      Pt(std::int64_t started, std::int64_t run, double ns)
          : started_ms(started), run_id(run), value(ns), log_value(detect::log_value(ns)) {}
      std::int64_t started_ms = 0, run_id = 0;
      double value = 0, log_value = 0;
    };
    std::vector<Pt> pts;  // time order, at most max(window, noise_window)
  };
  struct Pass;  // one run's detection (run_detector.cpp)
  std::vector<std::int64_t> detect_run(std::int64_t run_pk, const std::vector<std::int64_t>& series_ids);
  Window& window_for(std::int64_t series_id);
  void take_into_window(std::int64_t series_id, Window::Pt pt);  // where its window is held; once
  void load_windows(std::int64_t run_pk, std::int64_t gpu_id, const std::vector<std::int64_t>& series_ids);
  // The alerts it closed.
  std::size_t close_regressions_gone(const std::vector<lifecycle::OpenRegression>& open, const Window& window);

  static constexpr std::size_t kMostWindows = 50000;  // windows held; past it all go (reloads are cheap)

  Database& db_;
  DetectorOptions opts_;
  std::unordered_map<std::int64_t, std::unique_ptr<Window>> windows_;  // guarded by the database's detect mutex
  MainRunsFollower windows_follower_;  // where other processes add runs too: which runs windows_ has taken in
  // Per GPU: its next main run's noise model being learned (analysis::learn_next_noise_model); detect mutex too.
  std::unordered_map<std::int64_t, std::shared_future<void>> models_ahead_;
  WorkerPool pool_;  // the pure work of a run's detection, beside the database's
  std::atomic<std::uint64_t> detect_ns_{0};
};

}  // namespace shaderwatch
