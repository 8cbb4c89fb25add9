// Storage, ingest and queries of the shaderwatch results server, independent of HTTP so the
// server, the CLI and the load test share one implementation.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <shaderwatch/result_contract.h>

#include <nlohmann/json.hpp>

#include "detection/alert_lifecycle.h"
#include "detection/analysis.h"
#include "detection/detect.h"

namespace shaderwatch::sql {
class Conn;
}

namespace shaderwatch {


// A problem with what the client sent: always answered with a 4xx and a JSON error naming the
// field (JSON-path-like, e.g. "benchmark.benchmarks[3].real_time").
struct ClientError : std::runtime_error {
  ClientError(int status, std::string message, std::string field = {})
      : std::runtime_error(message), status(status), field(std::move(field)) {}
  int status;
  std::string field;
};

// The database has no room (its disk is full, or --max-db-mib is reached): the write in progress is
// rolled back. The HTTP layer answers 507.
struct StorageFull : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Params = std::map<std::string, std::string>;  // query-string parameters

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
  // Timings of a device of type cpu (lavapipe) gate verdicts only when this is set: on a shared runner they
  // move several-fold between runs, so by default such runs are judged on correctness alone.
  bool gate_cpu_timings = false;
  std::size_t max_nesting = 64;  // deeper JSON is refused before parsing
  std::uint64_t max_db_mib = 0;   // SQLite only. 0: as large as the disk allows; else writes past it fail (507)
};

struct IngestResult {
  bool created = false;  // false: the same run id and body were already stored
  nlohmann::json body;   // the stored run (and alerts raised by this ingest)
};

// What a token may do (server/README.md, "Token scopes"): upload posts runs, triage changes alerts'
// states, admin both. Disjoint rather than a ladder: a CI runner's token cannot mark a regression invalid,
// and a triage token cannot post runs (posted runs can close regressions by evidence). Reads, where
// --read-token-required, take any valid token.
enum class TokenScope { Upload, Triage, Admin };
const char* to_string(TokenScope s);
std::optional<TokenScope> parse_token_scope(std::string_view text);
inline constexpr TokenScope kTokenScopes[] = {TokenScope::Upload, TokenScope::Triage, TokenScope::Admin};
inline bool may_post_runs(TokenScope s) { return s == TokenScope::Upload || s == TokenScope::Admin; }
inline bool may_triage(TokenScope s) { return s == TokenScope::Triage || s == TokenScope::Admin; }

struct TokenInfo {
  std::string name, created_at;
  std::optional<std::string> revoked_at;
  TokenScope scope = TokenScope::Upload;
};

struct StoreStats {
  std::uint64_t runs = 0, results = 0;
  std::uint64_t parse_ns = 0, ingest_ns = 0, detect_ns = 0;  // summed over ingests
};

class Store {
 public:
  explicit Store(StoreOptions opts);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  static constexpr int kSchemaVersion = 4;
  int schema_version();
  // Where the data lives, for messages: the file, or the URI without its password.
  const std::string& location() const { return location_; }

  // Ingest one wrapper document {"run": {...}, "benchmark": {...Google Benchmark JSON...}}.
  // Throws ClientError (400 bad input, 409 same id with another body).
  // posted_by: the token name, recorded on the run.
  IngestResult ingest(std::string_view body, const std::string& posted_by = "api");

  // Tokens: the plaintext is returned once by create and never stored (SHA-256 only).
  std::string create_token(const std::string& name, TokenScope scope);
  std::vector<TokenInfo> list_tokens();
  bool revoke_token(const std::string& name);
  // The token's name and scope when valid and not revoked.
  std::optional<TokenInfo> check_token(std::string_view token);

  // Queries: JSON answers; ClientError 400 for bad parameters, 404 for unknown ids.
  nlohmann::json gpus(const Params& q);
  nlohmann::json drivers(const Params& q);
  nlohmann::json benchmarks(const Params& q);
  nlohmann::json runs(const Params& q);
  nlohmann::json run(const std::string& run_id);
  // The raw rows of a run's document, in document order (repetitions and aggregates).
  nlohmann::json run_results(const std::string& run_id, const Params& q);
  nlohmann::json series_list(const Params& q);
  nlohmann::json series(std::int64_t id, const Params& q);
  nlohmann::json alerts(const Params& q);
  nlohmann::json alert(std::int64_t id);
  nlohmann::json set_alert_state(std::int64_t id, std::string_view body, const std::string& by);
  nlohmann::json compare(const Params& q);
  nlohmann::json verdict(const std::string& run_id);
  nlohmann::json rankings(const Params& q);
  // The dashboard's overview: every GPU (drivers, open alerts by kind, last run with its verdict) and
  // the latest runs with their verdicts.
  nlohmann::json summary(const Params& q);
  // Kernels x (GPU, driver): each benchmark's outcome in the latest run of each pair.
  nlohmann::json correctness(const Params& q);
  // The names the API uses for alert states, kinds, causes and outcomes, so clients spell none by hand.
  nlohmann::json vocabulary();

  StoreStats stats() const;

 private:
  struct Window;  // cached tail of one series for detection
  class ReaderLease;
  ReaderLease reader();
  void migrate();
  nlohmann::json run_json(sql::Conn& c, std::int64_t run_pk);
  nlohmann::json alert_json(sql::Conn& c, std::int64_t alert_id);
  nlohmann::json detect_after_ingest(std::int64_t run_pk,
                                     const std::vector<std::int64_t>& series_ids);
  Window& window_for(std::int64_t series_id);
  void load_windows(std::int64_t run_pk, std::int64_t gpu_id, const std::vector<std::int64_t>& series_ids);
  void close_regressions_gone(const std::vector<lifecycle::OpenRegression>& open, const Window& window);
  std::unique_lock<std::mutex> detector_write_lock();

  StoreOptions opts_;
  std::string location_;
  std::mutex write_mu_;  // one writer per process (SQLite serialises writers anyway: this avoids busy waits)
  std::unique_ptr<sql::Conn> writer_;
  // Detection runs after the ingest transaction, outside write_mu_, so the next run's
  // transaction overlaps this run's analysis. detect_mu_ serialises detection and guards
  // windows_ and detector_; detection takes write_mu_ only for its (rare) alert writes.
  std::mutex detect_mu_;
  std::unique_ptr<sql::Conn> detector_;
  std::mutex read_mu_;
  std::condition_variable read_cv_;
  std::vector<std::unique_ptr<sql::Conn>> readers_;
  // Name/key -> id caches for the writer, filled only after a commit.
  std::unordered_map<std::string, std::int64_t> bench_ids_, gpu_ids_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> series_ids_;
  std::unordered_map<std::int64_t, std::unique_ptr<Window>> windows_;
  std::atomic<std::uint64_t> n_runs_{0}, n_results_{0}, parse_ns_{0}, ingest_ns_{0}, detect_ns_{0};
};

// Helpers shared with the HTTP layer and tests.
// Depth of the deepest array/object nesting in a JSON text, stopping early past limit.
std::size_t json_nesting_depth(std::string_view text, std::size_t limit);
// Parses a request body that must be a JSON object nested at most max_nesting deep; ClientError (400)
// naming what is wrong otherwise.
nlohmann::json parse_json_object(std::string_view body, std::size_t max_nesting);
std::string sha256_hex(std::string_view data);
// ISO 8601 (YYYY-MM-DDTHH:MM:SS[.fff][Z|+HH:MM]) to Unix milliseconds; nullopt when malformed.
std::optional<std::int64_t> parse_iso8601_ms(std::string_view s);
std::string format_iso8601_ms(std::int64_t ms);

}  // namespace shaderwatch
