// A posted run into the database: parse and group (ingest_parse.h, point_grouping.h), then one
// transaction of upserts and bulk inserts, tried again when another server process wins a race.
// Renders nothing: what it wrote comes back as ids for detection and for the API's answer.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/database.h"

namespace shaderwatch {

struct RunWriterOptions {
  std::size_t max_nesting = 64;     // deeper JSON is refused before parsing
  std::string main_branch = "main";  // a run naming no branch is on it
};

struct WrittenRun {
  bool created = false;  // false: the same run id and body were already stored
  std::int64_t run_pk = 0;
  std::string run_key;
  std::int64_t started_ms = 0;
  std::size_t rows = 0;
  // Main-branch runs only: the series the run added a point to, and those points' repetitions.
  std::vector<std::int64_t> touched;
  std::vector<std::pair<std::int64_t, std::vector<double>>> fresh;
};

class RunWriter {
 public:
  RunWriter(Database& db, RunWriterOptions opts);
  // One wrapper document {"run": {...}, "benchmark": {...Google Benchmark JSON...}}. Throws ClientError
  // (400 bad input, 409 same id with another body). posted_by: the token name, recorded on the run.
  WrittenRun write(std::string_view body, const std::string& posted_by);

  std::uint64_t runs() const { return n_runs_; }
  std::uint64_t results() const { return n_results_; }
  std::uint64_t parse_ns() const { return parse_ns_; }
  std::uint64_t ingest_ns() const { return ingest_ns_; }

 private:
  Database& db_;
  RunWriterOptions opts_;
  // Name/key -> id caches, filled only after a commit (used under the write lock).
  std::unordered_map<std::string, std::int64_t> bench_ids_, gpu_ids_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> series_ids_;
  std::map<std::string, std::int64_t> shape_ids_;  // row shape -> id (storage/result_sets.h)
  std::atomic<std::uint64_t> n_runs_{0}, n_results_{0}, parse_ns_{0}, ingest_ns_{0};
};

}  // namespace shaderwatch
