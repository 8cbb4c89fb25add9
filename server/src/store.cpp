#include <openssl/rand.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>

#include "shaderwatch/benchmark_name.hpp"
#include "store_internal.hpp"

using nlohmann::json;

namespace sw {

namespace contract = shaderwatch::contract;

namespace {

// Schema migrations, applied in order at start; PRAGMA user_version records how many ran.
// Append only: never edit a migration that has shipped.
const char* const kMigrations[] = {
    R"SQL(
CREATE TABLE tokens(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  hash TEXT NOT NULL UNIQUE,          -- SHA-256 hex of the token; the plaintext is never stored
  created_at TEXT NOT NULL,
  revoked_at TEXT);
CREATE TABLE gpus(
  id INTEGER PRIMARY KEY,
  vendor_id TEXT NOT NULL, device_id TEXT NOT NULL, name TEXT NOT NULL,
  device_type TEXT NOT NULL,
  UNIQUE(vendor_id, device_id, name));
CREATE TABLE benchmarks(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,           -- with its arguments, e.g. lum/sequential_256/1920x1080/cold
  family TEXT NOT NULL, variant TEXT NOT NULL, config TEXT NOT NULL);
CREATE INDEX benchmarks_family ON benchmarks(family);
CREATE TABLE series(
  id INTEGER PRIMARY KEY,
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  gpu_id INTEGER NOT NULL REFERENCES gpus(id),
  UNIQUE(benchmark_id, gpu_id));
CREATE INDEX series_gpu ON series(gpu_id);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  run_key TEXT NOT NULL UNIQUE,        -- the client-chosen run id
  body_sha256 TEXT NOT NULL,           -- of the canonical body, for idempotency
  gpu_id INTEGER NOT NULL REFERENCES gpus(id),
  commit_id TEXT NOT NULL, branch TEXT NOT NULL, runner TEXT NOT NULL, job_url TEXT NOT NULL,
  started_at TEXT NOT NULL, started_ms INTEGER NOT NULL, received_at TEXT NOT NULL,
  driver_id TEXT NOT NULL, driver_name TEXT NOT NULL, driver_info TEXT NOT NULL,
  driver_version TEXT NOT NULL, api_version TEXT NOT NULL, harness_revision TEXT NOT NULL,
  device_uuid TEXT NOT NULL, driver_uuid TEXT NOT NULL, subgroup_size TEXT NOT NULL,
  host_name TEXT NOT NULL, context TEXT NOT NULL,
  n_results INTEGER NOT NULL, posted_by TEXT NOT NULL);
CREATE INDEX runs_gpu_time ON runs(gpu_id, started_ms, id);
CREATE INDEX runs_time ON runs(started_ms, id);
CREATE INDEX runs_commit ON runs(commit_id, gpu_id, started_ms);
CREATE TABLE results(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  idx INTEGER NOT NULL,                -- position in the document's benchmarks array
  run_type TEXT NOT NULL CHECK(run_type IN ('iteration','aggregate')),
  aggregate_name TEXT, repetition_index INTEGER NOT NULL, repetitions INTEGER NOT NULL,
  threads INTEGER NOT NULL, iterations INTEGER NOT NULL,
  real_ns REAL, cpu_ns REAL, time_unit TEXT NOT NULL, label TEXT NOT NULL,
  error_occurred INTEGER NOT NULL, error_message TEXT NOT NULL, counters TEXT NOT NULL);
CREATE INDEX results_run ON results(run_id, benchmark_id);
-- One point per (series, run): the median of the run's repetitions; what the detector reads.
CREATE TABLE points(
  series_id INTEGER NOT NULL REFERENCES series(id),
  started_ms INTEGER NOT NULL,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  value_ns REAL, min_ns REAL, max_ns REAL,
  n_reps INTEGER NOT NULL, n_errors INTEGER NOT NULL, error_message TEXT NOT NULL,
  label TEXT NOT NULL, reps BLOB NOT NULL,
  PRIMARY KEY(series_id, started_ms, run_id)) WITHOUT ROWID;
CREATE INDEX points_run ON points(run_id, series_id);
CREATE TABLE alerts(
  id INTEGER PRIMARY KEY,
  series_id INTEGER NOT NULL REFERENCES series(id),
  run_id INTEGER NOT NULL REFERENCES runs(id),       -- first run of the new level
  prev_run_id INTEGER REFERENCES runs(id),           -- last run of the old level
  started_ms INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK(kind IN ('correctness_regression','correctness_failure',
                                    'regression','improvement','ambiguous')),
  severity INTEGER NOT NULL,
  state TEXT NOT NULL CHECK(state IN ('new','acknowledged','expected','fixed','invalid')),
  before_ns REAL, after_ns REAL, delta_pct REAL, noise_pct REAL, floor_pct REAL,
  score REAL, p_value REAL, n_before INTEGER, n_after INTEGER,
  cause TEXT NOT NULL, attribution TEXT NOT NULL,
  raised_by INTEGER NOT NULL REFERENCES runs(id),
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, state_by TEXT, note TEXT,
  UNIQUE(series_id, run_id, kind));
CREATE INDEX alerts_series ON alerts(series_id, started_ms);
CREATE INDEX alerts_state ON alerts(state, id);
CREATE INDEX alerts_run ON alerts(run_id);
)SQL",
    // 2: branches. A run names the main-branch commit it forked from (merge_base); a point says whether
    // its run is on the main branch (only those form levels, change points and alerts).
    R"SQL(
ALTER TABLE runs ADD COLUMN merge_base TEXT NOT NULL DEFAULT '';
ALTER TABLE points ADD COLUMN on_main INTEGER NOT NULL DEFAULT 1;
)SQL",
};

constexpr std::size_t kMaxBenchmarks = 200000;
constexpr std::size_t kMaxString = 1024;
constexpr double kMaxNs = 1e18;  // ~31 years: anything larger is a unit or encoding bug

std::string now_iso() { return format_iso8601_ms(now_ms()); }

// ---- Input validation helpers: every failure names the field. ----

const json* find(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string get_string(const json& obj, const char* key, const std::string& path, bool required,
                       std::size_t max_len = kMaxString, const std::string& dflt = "unknown") {
  const json* v = find(obj, key);
  if (!v || v->is_null()) {
    if (required) throw ClientError(400, "missing required field", path + "." + key);
    return dflt;
  }
  if (!v->is_string()) throw ClientError(400, "must be a string", path + "." + key);
  const auto& s = v->get_ref<const std::string&>();
  if (required && s.empty()) throw ClientError(400, "must not be empty", path + "." + key);
  if (s.size() > max_len)
    throw ClientError(400, "longer than " + std::to_string(max_len) + " characters", path + "." + key);
  return s;
}

std::int64_t get_int(const json& obj, const char* key, const std::string& path, bool required,
                     std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
  const json* v = find(obj, key);
  if (!v) {
    if (required) throw ClientError(400, "missing required field", path + "." + key);
    return dflt;
  }
  std::int64_t x;
  if (v->is_number_unsigned()) {
    const auto u = v->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi)) throw ClientError(400, "out of range", path + "." + key);
    x = static_cast<std::int64_t>(u);
  } else if (v->is_number_integer()) {
    x = v->get<std::int64_t>();
  } else if (v->is_number_float()) {
    throw ClientError(400, "must be an integer (got a non-integer or too large number)",
                      path + "." + key);
  } else {
    throw ClientError(400, "must be an integer", path + "." + key);
  }
  if (x < lo || x > hi)
    throw ClientError(400, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
                      path + "." + key);
  return x;
}

std::optional<double> get_number(const json& obj, const char* key, const std::string& path,
                                 bool required) {
  const json* v = find(obj, key);
  if (!v) {
    if (required) throw ClientError(400, "missing required field", path + "." + key);
    return std::nullopt;
  }
  if (!v->is_number()) throw ClientError(400, "must be a number", path + "." + key);
  const double d = v->get<double>();
  if (!std::isfinite(d)) throw ClientError(400, "must be finite", path + "." + key);
  return d;
}

bool valid_run_key(const std::string& s) {
  if (s.empty() || s.size() > 128) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == ':' || c == '@' ||
           c == '+';
  });
}

bool printable_no_space(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return c > 32 && c < 127; });
}

struct Row {
  std::size_t idx = 0;
  std::string series_name, run_type, aggregate_name, aggregate_unit, label, error_message,
      time_unit, counters;
  std::int64_t repetition_index = 0, repetitions = 0, threads = 1, iterations = 0;
  std::optional<double> real_ns, cpu_ns;
  bool error = false;
};

struct Parsed {
  std::string run_key, commit, branch, merge_base, runner, job_url, started_at;
  std::int64_t started_ms = 0;
  std::string vendor_id, device_id, device_name, device_type, driver_id, driver_name, driver_info,
      driver_version, api_version, harness_revision, device_uuid, driver_uuid, subgroup_size,
      host_name, context;
  std::vector<Row> rows;
  std::string sha;
};

const std::set<std::string>& known_row_keys() {
  static const std::set<std::string> k = {
      "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
      "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "label",
      "error_occurred", "error_message", "aggregate_name", "aggregate_unit", "big_o",
      "cpu_coefficient", "real_coefficient", "rms"};
  return k;
}

// Identity of a run's content for idempotency: everything that is stored, field by field, in a
// fixed order. Formatting, key order and keys the server ignores do not change it, and it costs
// a fraction of re-serialising the document.
std::string content_hash(const Parsed& p) {
  Sha256 h;
  for (const std::string* f : {&p.run_key, &p.commit, &p.branch, &p.runner, &p.job_url, &p.started_at, &p.context})
    h.field(*f);
  if (!p.merge_base.empty()) h.field(p.merge_base);  // only when given: runs stored before it keep their hash
  h.field(static_cast<std::int64_t>(p.rows.size()));
  for (const auto& r : p.rows) {
    for (const std::string* f : {&r.series_name, &r.run_type, &r.aggregate_name, &r.aggregate_unit, &r.label,
                                 &r.error_message, &r.time_unit, &r.counters})
      h.field(*f);
    for (std::int64_t v : {r.repetition_index, r.repetitions, r.threads, r.iterations, std::int64_t{r.error}})
      h.field(v);
    h.field(r.real_ns ? *r.real_ns : -1.0);
    h.field(r.cpu_ns ? *r.cpu_ns : -1.0);
  }
  return h.hex();
}

Parsed parse_body(std::string_view body, std::size_t max_nesting) {
  const json j = parse_json_object(body, max_nesting);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "run" && it.key() != "benchmark")
      throw ClientError(400, "unknown field (expected only \"run\" and \"benchmark\")", it.key());
  const json* run = find(j, "run");
  if (!run) throw ClientError(400, "missing required field", "run");
  if (!run->is_object()) throw ClientError(400, "must be an object", "run");
  const json* doc = find(j, "benchmark");
  if (!doc) throw ClientError(400, "missing required field", "benchmark");
  if (!doc->is_object()) throw ClientError(400, "must be an object (Google Benchmark JSON)", "benchmark");

  Parsed p;
  static const std::set<std::string> run_keys = {"id", "commit", "branch", "merge_base", "runner", "job_url",
                                                  "started_at"};
  for (auto it = run->begin(); it != run->end(); ++it)
    if (!run_keys.count(it.key())) throw ClientError(400, "unknown field", "run." + it.key());
  p.run_key = get_string(*run, "id", "run", true, 128);
  if (!valid_run_key(p.run_key))
    throw ClientError(400, "must be 1-128 characters of [A-Za-z0-9._:@+-]", "run.id");
  p.commit = get_string(*run, "commit", "run", true, 128);
  if (!printable_no_space(p.commit)) throw ClientError(400, "must be printable ASCII without spaces", "run.commit");
  p.branch = get_string(*run, "branch", "run", false, 256, "");  // none: the main branch (Store fills it in)
  p.merge_base = get_string(*run, "merge_base", "run", false, 128, "");
  if (!printable_no_space(p.merge_base)) throw ClientError(400, "must be printable ASCII without spaces", "run.merge_base");
  p.runner = get_string(*run, "runner", "run", false, 256);
  p.job_url = get_string(*run, "job_url", "run", false, 2048, "");

  // Device identity from the context; anything missing is "unknown", never a rejection.
  const json* ctx = find(*doc, "context");
  json empty = json::object();
  if (ctx && !ctx->is_object()) throw ClientError(400, "must be an object", "benchmark.context");
  if (!ctx) ctx = &empty;
  const std::string cp = "benchmark.context";
  // Start time: run.started_at, else the date Google Benchmark wrote into its context.
  std::string started = get_string(*run, "started_at", "run", false, 64, "");
  std::string started_field = "run.started_at";
  if (started.empty()) {
    started = get_string(*ctx, "date", cp, false, 64, "");
    started_field = "benchmark.context.date";
    if (started.empty())
      throw ClientError(400, "missing required field (and no benchmark.context.date to fall back on)",
                        "run.started_at");
  }
  const auto ms = parse_iso8601_ms(started);
  if (!ms) throw ClientError(400, "must be ISO 8601 with a zone, e.g. 2026-11-21T04:33:38Z", started_field);
  p.started_ms = *ms;
  p.started_at = format_iso8601_ms(*ms);
  p.device_name = get_string(*ctx, contract::context_key(contract::kDeviceName).c_str(), cp, false, 256);
  p.vendor_id = get_string(*ctx, contract::context_key(contract::kVendorId).c_str(), cp, false, 64);
  p.device_id = get_string(*ctx, contract::context_key(contract::kDeviceId).c_str(), cp, false, 64);
  p.device_type = get_string(*ctx, contract::context_key(contract::kDeviceType).c_str(), cp, false, 64);
  p.driver_id = get_string(*ctx, contract::context_key(contract::kDriverId).c_str(), cp, false, 128);
  p.driver_name = get_string(*ctx, contract::context_key(contract::kDriverName).c_str(), cp, false, 256);
  p.driver_info = get_string(*ctx, contract::context_key(contract::kDriverInfo).c_str(), cp, false, 512);
  p.driver_version = get_string(*ctx, contract::context_key(contract::kDriverVersion).c_str(), cp, false, 128);
  p.api_version = get_string(*ctx, contract::context_key(contract::kApiVersion).c_str(), cp, false, 64);
  p.device_uuid = get_string(*ctx, contract::context_key(contract::kDeviceUuid).c_str(), cp, false, 128);
  p.driver_uuid = get_string(*ctx, contract::context_key(contract::kDriverUuid).c_str(), cp, false, 128);
  p.subgroup_size = get_string(*ctx, contract::context_key(contract::kSubgroupSize).c_str(), cp, false, 32);
  p.harness_revision = get_string(*ctx, contract::context_key(contract::kHarnessRevision).c_str(), cp, false, 128);
  p.host_name = get_string(*ctx, "host_name", cp, false, 256);
  p.context = ctx->dump();
  if (p.context.size() > 65536) throw ClientError(400, "larger than 64 KiB", cp);

  const json* benches = find(*doc, "benchmarks");
  if (!benches) throw ClientError(400, "missing required field", "benchmark.benchmarks");
  if (!benches->is_array()) throw ClientError(400, "must be an array", "benchmark.benchmarks");
  if (benches->size() > kMaxBenchmarks)
    throw ClientError(400, "more than " + std::to_string(kMaxBenchmarks) + " entries", "benchmark.benchmarks");
  p.rows.reserve(benches->size());
  for (std::size_t i = 0; i < benches->size(); ++i) {
    const json& b = (*benches)[i];
    const std::string path = "benchmark.benchmarks[" + std::to_string(i) + "]";
    if (!b.is_object()) throw ClientError(400, "must be an object", path);
    Row r;
    r.idx = i;
    const std::string name = get_string(b, "name", path, true);
    r.run_type = get_string(b, "run_type", path, false, 16, "iteration");
    if (r.run_type != "iteration" && r.run_type != "aggregate")
      throw ClientError(400, "must be \"iteration\" or \"aggregate\"", path + ".run_type");
    const bool agg = r.run_type == "aggregate";
    if (agg) {
      r.aggregate_name = get_string(b, "aggregate_name", path, true, 64);
      r.aggregate_unit = get_string(b, "aggregate_unit", path, false, 32, "time");
    }
    r.series_name = get_string(b, "run_name", path, false, kMaxString, "");
    if (r.series_name.empty()) {
      r.series_name = name;
      const std::string suffix = "_" + r.aggregate_name;
      if (agg && name.size() > suffix.size() && name.ends_with(suffix))
        r.series_name = name.substr(0, name.size() - suffix.size());
    }
    r.series_name = shaderwatch::series_key(r.series_name);
    get_int(b, "family_index", path, false, 0, 0, 1 << 30);
    get_int(b, "per_family_instance_index", path, false, 0, 0, 1 << 30);
    r.repetitions = get_int(b, "repetitions", path, false, 1, 0, 1 << 30);
    r.repetition_index = get_int(b, "repetition_index", path, false, 0, 0, 1 << 30);
    r.threads = get_int(b, "threads", path, false, 1, 1, 1 << 20);
    if (const json* e = find(b, "error_occurred")) {
      if (!e->is_boolean()) throw ClientError(400, "must be a boolean", path + ".error_occurred");
      r.error = e->get<bool>();
    }
    r.error_message = get_string(b, "error_message", path, false, 4096, "");
    if (r.error && r.error_message.empty()) r.error_message = "error_occurred without a message";
    r.label = get_string(b, "label", path, false, kMaxString, "");
    const bool bigo = find(b, "big_o") || find(b, "rms");
    // Iteration rows must carry their measurements unless they failed; BigO/RMS rows carry
    // coefficients instead, so their times are optional.
    const bool need_times = !agg && !r.error;
    r.iterations = get_int(b, "iterations", path, need_times, 0, 0, INT64_MAX);
    r.time_unit = get_string(b, "time_unit", path, false, 8, "ns");
    double scale;
    if (r.time_unit == "ns") scale = 1;
    else if (r.time_unit == "us") scale = 1e3;
    else if (r.time_unit == "ms") scale = 1e6;
    else if (r.time_unit == "s") scale = 1e9;
    else throw ClientError(400, "must be one of ns, us, ms, s", path + ".time_unit");
    if (agg && r.aggregate_unit == "percentage") scale = 1;  // cv rows: a ratio, not a time
    auto rt = get_number(b, "real_time", path, need_times && !bigo);
    auto ct = get_number(b, "cpu_time", path, need_times && !bigo);
    if (rt) {
      if (*rt < 0 || *rt * scale > kMaxNs) throw ClientError(400, "out of range (0 to 1e18 ns)", path + ".real_time");
      r.real_ns = *rt * scale;
    }
    if (ct) {
      if (*ct < 0 || *ct * scale > kMaxNs) throw ClientError(400, "out of range (0 to 1e18 ns)", path + ".cpu_time");
      r.cpu_ns = *ct * scale;
    }
    // User counters: every other numeric key.
    json counters = json::object();
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (known_row_keys().count(it.key())) continue;
      if (it.key().size() > 256) throw ClientError(400, "counter name longer than 256 characters", path);
      if (it.value().is_number()) counters[it.key()] = it.value();
    }
    r.counters = counters.dump();
    p.rows.push_back(std::move(r));
  }
  p.sha = content_hash(p);
  return p;
}

}  // namespace

NameParts split_name(const std::string& name) {
  NameParts n;
  const auto a = name.find('/');
  n.family = name.substr(0, a);
  if (a == std::string::npos) return n;
  const auto b = name.find('/', a + 1);
  n.variant = name.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  if (b != std::string::npos) n.config = name.substr(b + 1);
  return n;
}

Store::Store(StoreOptions opts) : opts_(std::move(opts)) {
  writer_ = std::make_unique<sql::Conn>(opts_.path);
  // WAL: readers never block the writer; synchronous=NORMAL is durable against process crashes
  // (a power cut may lose the last commits, which CI re-posts idempotently).
  writer_->exec("PRAGMA journal_mode=WAL");
  writer_->exec("PRAGMA synchronous=NORMAL");
  writer_->exec("PRAGMA cache_size=-65536");
  writer_->exec("PRAGMA temp_store=MEMORY");
  migrate();
  detector_ = std::make_unique<sql::Conn>(opts_.path);
  detector_->exec("PRAGMA cache_size=-32768");
  for (std::size_t i = 0; i < std::max<std::size_t>(1, opts_.readers); ++i) {
    auto c = std::make_unique<sql::Conn>(opts_.path);
    c->exec("PRAGMA query_only=ON");
    c->exec("PRAGMA cache_size=-32768");
    readers_.push_back(std::move(c));
  }
  auto& st = writer_->q("SELECT COUNT(*), COALESCE(SUM(n_results),0) FROM runs");
  if (st.step()) {
    n_runs_ = static_cast<std::uint64_t>(st.i64(0));
    n_results_ = static_cast<std::uint64_t>(st.i64(1));
  }
}

Store::~Store() = default;

int Store::schema_version() {
  WriteLock lk(write_mu_, *writer_);
  auto& st = writer_->q("PRAGMA user_version");
  st.step();
  return static_cast<int>(st.i64(0));
}

void Store::migrate() {
  auto& st = writer_->q("PRAGMA user_version");
  st.step();
  const int have = static_cast<int>(st.i64(0));
  st.reset();
  constexpr int known = static_cast<int>(std::size(kMigrations));
  static_assert(known == kSchemaVersion);
  if (have > known)
    throw std::runtime_error("database schema version " + std::to_string(have) +
                             " is newer than this server (" + std::to_string(known) + ")");
  for (int v = have; v < known; ++v) {
    sql::Tx tx(*writer_);
    writer_->exec(kMigrations[v]);
    writer_->exec("PRAGMA user_version=" + std::to_string(v + 1));
    tx.commit();
  }
}

Store::ReaderLease Store::reader() {
  std::unique_lock lk(read_mu_);
  read_cv_.wait(lk, [&] { return !readers_.empty(); });
  auto c = std::move(readers_.back());
  readers_.pop_back();
  return ReaderLease(*this, std::move(c));
}

StoreStats Store::stats() const {
  return {n_runs_.load(), n_results_.load(), parse_ns_.load(), ingest_ns_.load(), detect_ns_.load()};
}

// ---------------------------------------------------------------- tokens

std::string Store::create_token(const std::string& name) {
  if (name.empty() || name.size() > 64 ||
      !std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '.' || c == '_' || c == '-';
      }))
    throw ClientError(400, "token name must be 1-64 characters of [A-Za-z0-9._-]", "name");
  unsigned char raw[32];
  if (RAND_bytes(raw, sizeof raw) != 1) throw std::runtime_error("RAND_bytes failed");
  static const char* hex = "0123456789abcdef";
  std::string token = "swt_";
  for (unsigned char c : raw) {
    token.push_back(hex[c >> 4]);
    token.push_back(hex[c & 15]);
  }
  WriteLock lk(write_mu_, *writer_);
  auto& ex = writer_->q("SELECT 1 FROM tokens WHERE name=?");
  ex.bind(1, name);
  if (ex.step()) throw ClientError(409, "a token named '" + name + "' already exists", "name");
  writer_->q("INSERT INTO tokens(name, hash, created_at) VALUES(?,?,?)")
      .bind(1, name).bind(2, sha256_hex(token)).bind(3, now_iso()).run();
  return token;
}

std::vector<TokenInfo> Store::list_tokens() {
  std::vector<TokenInfo> out;
  auto c = reader();
  auto& st = c->q("SELECT name, created_at, revoked_at FROM tokens ORDER BY name");
  while (st.step()) {
    TokenInfo t{st.text(0), st.text(1), std::nullopt};
    if (!st.null(2)) t.revoked_at = st.text(2);
    out.push_back(std::move(t));
  }
  return out;
}

bool Store::revoke_token(const std::string& name) {
  WriteLock lk(write_mu_, *writer_);
  writer_->q("UPDATE tokens SET revoked_at=? WHERE name=? AND revoked_at IS NULL")
      .bind(1, now_iso()).bind(2, name).run();
  return sqlite3_changes(writer_->raw()) > 0;
}

std::optional<std::string> Store::check_token(std::string_view token) {
  if (token.empty() || token.size() > 256) return std::nullopt;
  const std::string h = sha256_hex(token);
  auto c = reader();
  auto& st = c->q("SELECT name FROM tokens WHERE hash=? AND revoked_at IS NULL");
  st.bind(1, h);
  if (st.step()) return st.text(0);
  return std::nullopt;
}

// ---------------------------------------------------------------- ingest

IngestResult Store::ingest(std::string_view body, const std::string& posted_by) {
  const auto t0 = mono_ns();
  Parsed p = parse_body(body, opts_.max_nesting);
  if (p.branch.empty()) p.branch = opts_.main_branch;
  // Only main-branch runs form levels, change points and alerts; other branches are judged against them.
  const bool on_main = p.branch == opts_.main_branch;
  const auto t1 = mono_ns();
  parse_ns_ += t1 - t0;

  // Group rows into points (one per benchmark name) before taking the lock.
  struct PointAcc {
    std::vector<double> reps;
    int n_errors = 0;
    std::string error_message, label;
    std::optional<double> agg_median, agg_mean;
    bool has_iteration = false;
  };
  std::map<std::string, PointAcc> acc;
  for (const auto& r : p.rows) {
    // The negative control's expected outcome and kernels the device cannot run are stored as raw rows,
    // but are neither a correctness failure nor a point of a series (contract/shaderwatch/result_contract.h).
    const auto kind = shaderwatch::contract::row_kind(r.error, r.error_message);
    if (kind == shaderwatch::contract::RowKind::expected_outcome || kind == shaderwatch::contract::RowKind::unsupported)
      continue;
    auto& a = acc[r.series_name];
    if (a.label.empty()) a.label = r.label;
    if (r.run_type == "iteration") {
      a.has_iteration = true;
      if (r.error) {
        ++a.n_errors;
        if (a.error_message.empty()) a.error_message = r.error_message;
      } else if (r.real_ns) {
        a.reps.push_back(*r.real_ns);
      }
    } else if (r.aggregate_unit == "time" && r.real_ns && !r.error) {
      if (r.aggregate_name == "median") a.agg_median = r.real_ns;
      if (r.aggregate_name == "mean") a.agg_mean = r.real_ns;
    } else if (r.error) {
      ++a.n_errors;
      if (a.error_message.empty()) a.error_message = r.error_message;
    }
  }

  std::optional<WriteLock> lk;
  lk.emplace(write_mu_, *writer_);
  const auto t2 = mono_ns();
  auto& w = *writer_;
  std::int64_t run_pk = 0;
  std::vector<std::int64_t> touched;
  std::vector<std::pair<std::int64_t, const std::vector<double>*>> fresh;  // series, repetitions
  std::unordered_map<std::string, std::int64_t> new_bench;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> new_series;
  std::string new_gpu_key;
  std::int64_t gpu_id = 0;
  {
    sql::Tx tx(w);
    {
      auto& ex = w.q("SELECT id, body_sha256 FROM runs WHERE run_key=?");
      ex.bind(1, p.run_key);
      if (ex.step()) {
        const std::int64_t id = ex.i64(0);
        const std::string sha = ex.text(1);
        ex.reset();
        if (sha != p.sha)
          throw ClientError(409, "run id '" + p.run_key + "' already stored with a different body",
                            "run.id");
        IngestResult res;
        res.created = false;
        res.body = {{"run", run_json(w, id)}, {"alerts", json::array()}};
        return res;
      }
    }
    const std::string gkey = p.vendor_id + '\x1f' + p.device_id + '\x1f' + p.device_name;
    if (auto it = gpu_ids_.find(gkey); it != gpu_ids_.end()) {
      gpu_id = it->second;
    } else {
      w.q("INSERT OR IGNORE INTO gpus(vendor_id, device_id, name, device_type) VALUES(?,?,?,?)")
          .bind(1, p.vendor_id).bind(2, p.device_id).bind(3, p.device_name).bind(4, p.device_type).run();
      auto& g = w.q("SELECT id FROM gpus WHERE vendor_id=? AND device_id=? AND name=?");
      g.bind(1, p.vendor_id).bind(2, p.device_id).bind(3, p.device_name);
      g.step();
      gpu_id = g.i64(0);
      new_gpu_key = gkey;
    }
    w.q("INSERT INTO runs(run_key, body_sha256, gpu_id, commit_id, branch, runner, job_url, started_at,"
        " started_ms, received_at, driver_id, driver_name, driver_info, driver_version, api_version,"
        " harness_revision, device_uuid, driver_uuid, subgroup_size, host_name, context, n_results,"
        " posted_by, merge_base) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
        .bind(1, p.run_key).bind(2, p.sha).bind(3, gpu_id).bind(4, p.commit).bind(5, p.branch)
        .bind(6, p.runner).bind(7, p.job_url).bind(8, p.started_at).bind(9, p.started_ms)
        .bind(10, now_iso()).bind(11, p.driver_id).bind(12, p.driver_name).bind(13, p.driver_info)
        .bind(14, p.driver_version).bind(15, p.api_version).bind(16, p.harness_revision)
        .bind(17, p.device_uuid).bind(18, p.driver_uuid).bind(19, p.subgroup_size)
        .bind(20, p.host_name).bind(21, p.context).bind(22, static_cast<std::int64_t>(p.rows.size()))
        .bind(23, posted_by).bind(24, p.merge_base).run();
    run_pk = w.last_id();

    auto bench_id = [&](const std::string& name) -> std::int64_t {
      if (auto it = bench_ids_.find(name); it != bench_ids_.end()) return it->second;
      if (auto it = new_bench.find(name); it != new_bench.end()) return it->second;
      const auto parts = split_name(name);
      w.q("INSERT OR IGNORE INTO benchmarks(name, family, variant, config) VALUES(?,?,?,?)")
          .bind(1, name).bind(2, parts.family).bind(3, parts.variant).bind(4, parts.config).run();
      auto& s = w.q("SELECT id FROM benchmarks WHERE name=?");
      s.bind(1, name);
      s.step();
      const auto id = s.i64(0);
      new_bench.emplace(name, id);
      return id;
    };
    auto series_id = [&](std::int64_t bid) -> std::int64_t {
      const auto key = std::make_pair(bid, gpu_id);
      if (auto it = series_ids_.find(key); it != series_ids_.end()) return it->second;
      if (auto it = new_series.find(key); it != new_series.end()) return it->second;
      w.q("INSERT OR IGNORE INTO series(benchmark_id, gpu_id) VALUES(?,?)").bind(1, bid).bind(2, gpu_id).run();
      auto& s = w.q("SELECT id FROM series WHERE benchmark_id=? AND gpu_id=?");
      s.bind(1, bid).bind(2, gpu_id);
      s.step();
      const auto id = s.i64(0);
      new_series.emplace(key, id);
      return id;
    };

    auto& ins = w.q(
        "INSERT INTO results(run_id, benchmark_id, idx, run_type, aggregate_name, repetition_index,"
        " repetitions, threads, iterations, real_ns, cpu_ns, time_unit, label, error_occurred,"
        " error_message, counters) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    for (const auto& r : p.rows) {
      ins.reset();
      ins.bind(1, run_pk).bind(2, bench_id(r.series_name)).bind(3, static_cast<std::int64_t>(r.idx))
          .bind(4, r.run_type);
      if (r.aggregate_name.empty()) ins.bind_null(5); else ins.bind(5, r.aggregate_name);
      ins.bind(6, r.repetition_index).bind(7, r.repetitions).bind(8, r.threads).bind(9, r.iterations)
          .bind(10, r.real_ns).bind(11, r.cpu_ns).bind(12, r.time_unit).bind(13, r.label)
          .bind(14, r.error ? 1 : 0).bind(15, r.error_message).bind(16, r.counters);
      ins.run();
    }
    auto& pins = w.q(
        "INSERT INTO points(series_id, started_ms, run_id, value_ns, min_ns, max_ns, n_reps, n_errors,"
        " error_message, label, reps, on_main) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
    for (auto& [name, a] : acc) {
      if (a.reps.empty() && !a.has_iteration) {
        // Aggregates-only output (--benchmark_report_aggregates_only): the median stands in.
        if (a.agg_median) a.reps.push_back(*a.agg_median);
        else if (a.agg_mean) a.reps.push_back(*a.agg_mean);
      }
      if (a.reps.empty() && a.n_errors == 0) continue;  // nothing measurable (e.g. BigO only)
      const std::int64_t sid = series_id(bench_id(name));
      pins.reset();
      pins.bind(1, sid).bind(2, p.started_ms).bind(3, run_pk);
      if (a.reps.empty()) {
        pins.bind_null(4).bind_null(5).bind_null(6);
      } else {
        pins.bind(4, detect::median(a.reps))
            .bind(5, *std::min_element(a.reps.begin(), a.reps.end()))
            .bind(6, *std::max_element(a.reps.begin(), a.reps.end()));
      }
      const std::string blob = pack_reps(a.reps);
      pins.bind(7, static_cast<std::int64_t>(a.reps.size())).bind(8, a.n_errors)
          .bind(9, a.error_message).bind(10, a.label).bind_blob(11, blob.data(), blob.size())
          .bind(12, on_main ? 1 : 0);
      pins.run();
      if (!on_main) continue;
      touched.push_back(sid);
      if (!a.reps.empty()) fresh.emplace_back(sid, &a.reps);
    }
    tx.commit();
  }
  // Only now are the new ids real.
  for (auto& [k, v] : new_bench) bench_ids_.emplace(k, v);
  for (auto& [k, v] : new_series) series_ids_.emplace(k, v);
  if (!new_gpu_key.empty()) gpu_ids_.emplace(new_gpu_key, gpu_id);
  IngestResult res;
  res.created = true;
  json run = run_json(w, run_pk);
  const auto t3 = mono_ns();
  ingest_ns_ += t3 - t2;
  n_runs_ += 1;
  n_results_ += p.rows.size();
  lk.reset();  // the next run's transaction may proceed while this one is analysed

  json alerts = json::array();
  if (opts_.detect_on_ingest) {
    std::lock_guard dl(detect_mu_);
    const auto t4 = mono_ns();
    // Keep the cached detection windows in step with what was committed. Another run may have
    // been analysed in between and loaded this point already: insert each point once.
    for (const auto& [sid, reps] : fresh) {
      auto wit = windows_.find(sid);
      if (wit == windows_.end()) continue;  // loaded from the database when first needed
      auto& pts = wit->second->pts;
      if (std::any_of(pts.begin(), pts.end(), [&](const auto& q) { return q.run_id == run_pk; })) continue;
      Window::Pt pt{p.started_ms, run_pk, detect::median(*reps), *reps};
      auto pos = std::upper_bound(pts.begin(), pts.end(), pt, [](const auto& l, const auto& r) {
        return std::tie(l.started_ms, l.run_id) < std::tie(r.started_ms, r.run_id);
      });
      pts.insert(pos, std::move(pt));
      if (pts.size() > std::max(opts_.detect.window, opts_.detect.noise_window)) pts.erase(pts.begin());
    }
    try {
      alerts = detect_after_ingest(run_pk, touched);
    } catch (const std::exception& e) {
      // The run is stored; a detector failure must not lose it. Logged for the operator.
      std::cerr << "shaderwatch-server: detection failed for run " << p.run_key << ": " << e.what()
                << "\n";
    }
    detector_->reset_all();
    detect_ns_ += mono_ns() - t4;
  }
  res.body = {{"run", std::move(run)}, {"alerts", std::move(alerts)}};
  return res;
}

}  // namespace sw
