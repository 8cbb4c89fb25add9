// The results server's parts over one database, independent of HTTP so the server, the CLI, the fleet
// simulation and the load test share one implementation: the database (storage/database.h), tokens
// (tokens/token_store.h), the run writer (ingest/run_writer.h), detection on ingest
// (detection/run_detector.h) and the read side (queries/queries.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/client_error.h"
#include "detection/analysis.h"
#include "detection/detect.h"
#include "detection/run_detector.h"
#include "detection/what_ran.h"
#include "ingest/run_writer.h"
#include "queries/queries.h"
#include "storage/database.h"
#include "storage/migrations.h"
#include "storage/prune.h"
#include "storage/storage_errors.h"
#include "tokens/token_store.h"

namespace shaderwatch {

struct StoreOptions {
  // An SQLite file (a path, or sqlite:PATH) or a PostgreSQL database (postgresql://..., libpq's URI).
  std::string db = "shaderwatch.db";
  std::size_t readers = 4;  // pooled read-only connections (SQLite: WAL lets them read beside the writer)
  detect::Params detect;
  bool detect_on_ingest = true;
  // Runs on this branch (or naming none) form the series' levels, change points and alerts; runs on
  // any other branch are judged against the main branch's level at their merge base.
  std::string main_branch = "main";
  analysis::GateParams gate;  // the single-run gate (server/README.md, "Verdict")
  // Its parameters as data (serve --gate-config): the server's over `gate`, and per branch and GPU pattern.
  analysis::GateConfig gate_config;
  // Timings of a device of type cpu (lavapipe) gate verdicts only when this is set: on a shared runner they
  // move several-fold between runs, so by default such runs are judged on correctness alone.
  bool gate_cpu_timings = false;
  std::size_t max_nesting = 64;  // deeper JSON is refused before parsing
  std::uint64_t max_db_mib = 0;   // SQLite only. 0: as large as the disk allows; else writes past it fail (507)
};

struct IngestResult {
  bool created = false;  // false: the same run id and body were already stored
  IngestAnswer body;     // the stored run (and alerts raised by this ingest)
};

struct StoreStats {
  std::uint64_t runs = 0, results = 0;
  std::uint64_t parse_ns = 0, ingest_ns = 0, detect_ns = 0;  // summed over ingests
};

class Store {
 public:
  explicit Store(const StoreOptions& opts);
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  static constexpr int kSchemaVersion = shaderwatch::kSchemaVersion;
  int schema_version() { return db_.schema_version(); }
  const std::string& location() const { return db_.location(); }

  // Write, detect, answer: the run as stored and the alerts its ingest raised. ClientError 400 for bad
  // input, 409 for the same id with another body. posted_by: the token name, recorded on the run.
  IngestResult ingest(std::string_view body, const std::string& posted_by = "api");
  // The alert as triaged.
  Alert set_alert_state(std::int64_t id, std::string_view body, const std::string& by);

  // Whether the database answers: a trivial read on a pooled reader (throws DatabaseUnavailable where it cannot).
  // Retention (storage/prune.h): raw repetitions of old runs removed, summaries kept.
  PruneSummary prune(const PruneOptions& o, const std::function<void(const std::string&)>& progress) {
    return prune_raw_rows(db_, o, progress);
  }
  void ping() { db_.ping(); }

  TokenStore& tokens() { return tokens_; }
  Queries& queries() { return queries_; }
  StoreStats stats() const;

 private:
  bool detect_on_ingest_;
  Database db_;
  TokenStore tokens_;
  RunWriter writer_;
  WhatRanCache what_ran_;  // shared by detection's gate and the verdict: both judge the run just posted
  RunDetector detector_;
  Queries queries_;
};

}  // namespace shaderwatch
