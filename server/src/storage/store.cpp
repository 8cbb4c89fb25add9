// The store's write side: the schema and its migrations, connections, tokens and ingest (detection on
// ingest is store_detect.cpp; reads are queries*.cpp).
#include <openssl/rand.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>

#include "storage/bulk_insert.h"
#include "ingest/driver_identity.h"
#include "ingest/ingest_parse.h"
#include "ingest/benchmark_name.h"
#include "storage/store_internal.h"

using nlohmann::json;

namespace shaderwatch {

namespace contract = shaderwatch::contract;

namespace {

// 4: NVIDIA's driver version in the vendor's spelling (580.159.04, not the 580.159.4.0 an older harness
// wrote), spelled again from each run's raw driverVersion as ingest now does, so that a driver's runs
// before and after the upgrade of the server are one driver. Only NVIDIA's spelling changed.
void respell_driver_versions(sql::Conn& c) {
  std::vector<std::pair<std::int64_t, std::string>> changed;
  auto& st = c.q("SELECT r.id, r.driver_version, r.context FROM runs r JOIN gpus g ON g.id=r.gpu_id"
                 " WHERE LOWER(g.vendor_id)='0x10de'");
  while (st.step()) {
    const auto ctx = json::parse(st.text(2), nullptr, false);
    if (!ctx.is_object()) continue;
    const auto field = [&](const char* name) {
      const auto it = ctx.find(contract::context_key(name));
      return it != ctx.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    try {
      auto spelled = spelled_driver_version(field(contract::kVendorId), field(contract::kDriverId),
                                            field(contract::kDriverVersionRaw), st.text(1));
      if (spelled != st.text(1)) changed.emplace_back(st.i64(0), std::move(spelled));
    } catch (const std::invalid_argument&) {  // stored before ingest checked the raw version: left as it was
    }
  }
  st.reset();
  for (const auto& [id, version] : changed)
    c.q("UPDATE runs SET driver_version=? WHERE id=?").bind(1, version).bind(2, id).run();
}

// Schema migrations, applied in order at start; the schema version records how many ran. Written in
// SQLite's words; Conn::ddl gives PostgreSQL's; a migration that rewrites data does it in C++ after its
// SQL. Append only: never edit a migration that has shipped.
struct Migration {
  const char* sql;
  void (*rewrite)(sql::Conn&) = nullptr;
};
const Migration kMigrations[] = {
    {R"SQL(
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
)SQL"},
    // 2: branches. A run names the main-branch commit it forked from (merge_base); a point says whether
    // its run is on the main branch (only those form levels, change points and alerts).
    {R"SQL(
ALTER TABLE runs ADD COLUMN merge_base TEXT NOT NULL DEFAULT '';
ALTER TABLE points ADD COLUMN on_main INTEGER NOT NULL DEFAULT 1;
)SQL"},
    // 3: token scopes. Tokens made before scopes could do everything and keep doing it (admin); a row
    // inserted without a scope gets the least (upload).
    {R"SQL(
ALTER TABLE tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'upload' CHECK(scope IN ('upload','triage','admin'));
UPDATE tokens SET scope='admin';
)SQL"},
    // 4: the vendor's spelling of driver versions.
    {"", respell_driver_versions},
};

std::string now_iso() { return format_iso8601_ms(now_ms()); }

}  // namespace

Store::Store(StoreOptions opts) : opts_(std::move(opts)) {
  const auto where = sql::Location::parse(opts_.db);
  location_ = where.describe();
  if (opts_.max_db_mib && where.engine != sql::Engine::Sqlite)
    throw std::runtime_error("--max-db-mib limits an SQLite file; give PostgreSQL's database a quota of its own");
  writer_ = sql::connect(where, sql::Role::Writer);
  migrate();
  detector_ = sql::connect(where, sql::Role::Writer);
  if (opts_.max_db_mib) {
    sql::limit_sqlite_size(*writer_, opts_.max_db_mib);
    sql::limit_sqlite_size(*detector_, opts_.max_db_mib);
  }
  for (std::size_t i = 0; i < std::max<std::size_t>(1, opts_.readers); ++i)
    readers_.push_back(sql::connect(where, sql::Role::Reader));
  auto& st = writer_->q("SELECT COUNT(*), COALESCE(SUM(n_results),0) FROM runs");
  if (st.step()) {
    n_runs_ = static_cast<std::uint64_t>(st.i64(0));
    n_results_ = static_cast<std::uint64_t>(st.i64(1));
  }
  st.reset();
}

Store::~Store() = default;

int Store::schema_version() {
  WriteLock lk(write_mu_, *writer_);
  return writer_->schema_version();
}

// Every pending migration in one transaction, under a lock, so server processes starting together on one
// PostgreSQL database migrate it once.
void Store::migrate() {
  constexpr int known = static_cast<int>(std::size(kMigrations));
  static_assert(known == kSchemaVersion);
  sql::Tx tx(*writer_);
  writer_->lock_in_transaction(sql::Conn::kSchemaLock);
  const int have = writer_->schema_version();
  if (have > known)
    throw std::runtime_error("database schema version " + std::to_string(have) +
                             " is newer than this server (" + std::to_string(known) + ")");
  if (have == known) return;
  for (int v = have; v < known; ++v) {
    if (*kMigrations[v].sql) writer_->exec(writer_->ddl(kMigrations[v].sql));
    if (kMigrations[v].rewrite) kMigrations[v].rewrite(*writer_);
  }
  writer_->set_schema_version(known);
  tx.commit();
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

const char* to_string(TokenScope s) {
  switch (s) {
    case TokenScope::Upload: return "upload";
    case TokenScope::Triage: return "triage";
    case TokenScope::Admin: return "admin";
  }
  return "unknown";
}

std::optional<TokenScope> parse_token_scope(std::string_view text) {
  for (const auto s : kTokenScopes)
    if (text == to_string(s)) return s;
  return std::nullopt;
}

namespace {
// A scope as stored; migration 3's CHECK admits only the known names.
TokenScope stored_scope(const std::string& text) {
  if (const auto s = parse_token_scope(text)) return *s;
  throw std::runtime_error("token scope '" + text + "' in the database is not upload, triage or admin");
}
}  // namespace

std::string Store::create_token(const std::string& name, TokenScope scope) {
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
  writer_->q("INSERT INTO tokens(name, hash, created_at, scope) VALUES(?,?,?,?)")
      .bind(1, name).bind(2, sha256_hex(token)).bind(3, now_iso()).bind(4, to_string(scope)).run();
  return token;
}

std::vector<TokenInfo> Store::list_tokens() {
  std::vector<TokenInfo> out;
  auto c = reader();
  auto& st = c->q("SELECT name, created_at, revoked_at, scope FROM tokens ORDER BY name");
  while (st.step()) {
    TokenInfo t{st.text(0), st.text(1), std::nullopt, stored_scope(st.text(3))};
    if (!st.null(2)) t.revoked_at = st.text(2);
    out.push_back(std::move(t));
  }
  return out;
}

bool Store::revoke_token(const std::string& name) {
  WriteLock lk(write_mu_, *writer_);
  auto& st = writer_->q("UPDATE tokens SET revoked_at=? WHERE name=? AND revoked_at IS NULL");
  st.bind(1, now_iso()).bind(2, name).run();
  return st.changes() > 0;
}

std::optional<TokenInfo> Store::check_token(std::string_view token) {
  if (token.empty() || token.size() > 256) return std::nullopt;
  const std::string h = sha256_hex(token);
  auto c = reader();
  auto& st = c->q("SELECT name, created_at, scope FROM tokens WHERE hash=? AND revoked_at IS NULL");
  st.bind(1, h);
  if (!st.step()) return std::nullopt;
  return TokenInfo{st.text(0), st.text(1), std::nullopt, stored_scope(st.text(2))};
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
    const auto kind = contract::row_kind(r.error, r.error_message);
    if (kind == contract::RowKind::ExpectedOutcome || kind == contract::RowKind::Unsupported)
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
  // Another server process on the same PostgreSQL database may write the same names, or the same run,
  // at once: a lost race (deadlock, serialisation) runs the transaction again.
  for (int attempt = 1;; ++attempt) {
    touched.clear();
    fresh.clear();
    new_bench.clear();
    new_series.clear();
    new_gpu_key.clear();
    try {
      sql::Tx tx(w);
      const std::string gkey = p.vendor_id + '\x1f' + p.device_id + '\x1f' + p.device_name;
      if (auto it = gpu_ids_.find(gkey); it != gpu_ids_.end()) {
        gpu_id = it->second;
      } else {
        w.q("INSERT INTO gpus(vendor_id, device_id, name, device_type) VALUES(?,?,?,?) ON CONFLICT DO NOTHING")
            .bind(1, p.vendor_id).bind(2, p.device_id).bind(3, p.device_name).bind(4, p.device_type).run();
        auto& g = w.q("SELECT id FROM gpus WHERE vendor_id=? AND device_id=? AND name=?");
        g.bind(1, p.vendor_id).bind(2, p.device_id).bind(3, p.device_name);
        g.step();
        gpu_id = g.i64(0);
        g.reset();
        new_gpu_key = gkey;
      }
      {
        auto& ins = w.q(
            "INSERT INTO runs(run_key, body_sha256, gpu_id, commit_id, branch, runner, job_url, started_at,"
            " started_ms, received_at, driver_id, driver_name, driver_info, driver_version, api_version,"
            " harness_revision, device_uuid, driver_uuid, subgroup_size, host_name, context, n_results,"
            " posted_by, merge_base) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT(run_key) DO NOTHING RETURNING id");
        ins.bind(1, p.run_key).bind(2, p.sha).bind(3, gpu_id).bind(4, p.commit).bind(5, p.branch)
            .bind(6, p.runner).bind(7, p.job_url).bind(8, p.started_at).bind(9, p.started_ms)
            .bind(10, now_iso()).bind(11, p.driver_id).bind(12, p.driver_name).bind(13, p.driver_info)
            .bind(14, p.driver_version).bind(15, p.api_version).bind(16, p.harness_revision)
            .bind(17, p.device_uuid).bind(18, p.driver_uuid).bind(19, p.subgroup_size)
            .bind(20, p.host_name).bind(21, p.context).bind(22, static_cast<std::int64_t>(p.rows.size()))
            .bind(23, posted_by).bind(24, p.merge_base);
        const bool inserted = ins.step();
        run_pk = inserted ? ins.i64(0) : 0;
        ins.reset();
        if (!inserted) {
          // Stored already: by an earlier post, or by another server process that committed first.
          auto& ex = w.q("SELECT id, body_sha256 FROM runs WHERE run_key=?");
          ex.bind(1, p.run_key);
          if (!ex.step()) throw sql::Conflict("run id '" + p.run_key + "' was being stored by another process");
          const std::int64_t id = ex.i64(0);
          const std::string sha = ex.text(1);
          ex.reset();
          // The same body is answered as stored; another body is a conflict.
          if (sha != p.sha)
            throw ClientError(409, "run id '" + p.run_key + "' already stored with a different body", "run.id");
          IngestResult res;
          res.created = false;
          res.body = {{"run", run_json(w, id)}, {"alerts", json::array()}};
          return res;
        }
      }

      auto bench_id = [&](const std::string& name) -> std::int64_t {
        if (auto it = bench_ids_.find(name); it != bench_ids_.end()) return it->second;
        if (auto it = new_bench.find(name); it != new_bench.end()) return it->second;
        const auto parts = split_name(name);
        w.q("INSERT INTO benchmarks(name, family, variant, config) VALUES(?,?,?,?) ON CONFLICT DO NOTHING")
            .bind(1, name).bind(2, parts.family).bind(3, parts.variant).bind(4, parts.config).run();
        auto& s = w.q("SELECT id FROM benchmarks WHERE name=?");
        s.bind(1, name);
        s.step();
        const auto id = s.i64(0);
        s.reset();
        new_bench.emplace(name, id);
        return id;
      };
      auto series_id = [&](std::int64_t bid) -> std::int64_t {
        const auto key = std::make_pair(bid, gpu_id);
        if (auto it = series_ids_.find(key); it != series_ids_.end()) return it->second;
        if (auto it = new_series.find(key); it != new_series.end()) return it->second;
        w.q("INSERT INTO series(benchmark_id, gpu_id) VALUES(?,?) ON CONFLICT DO NOTHING")
            .bind(1, bid).bind(2, gpu_id).run();
        auto& s = w.q("SELECT id FROM series WHERE benchmark_id=? AND gpu_id=?");
        s.bind(1, bid).bind(2, gpu_id);
        s.step();
        const auto id = s.i64(0);
        s.reset();
        new_series.emplace(key, id);
        return id;
      };

      using sql::Value;
      auto text_or_null = [](const std::string& v) { return v.empty() ? Value{} : Value{v}; };
      auto real_or_null = [](const std::optional<double>& v) { return v ? Value{*v} : Value{}; };
      sql::BulkInsert results(w,
                              "INSERT INTO results(run_id, benchmark_id, idx, run_type, aggregate_name,"
                              " repetition_index, repetitions, threads, iterations, real_ns, cpu_ns, time_unit,"
                              " label, error_occurred, error_message, counters)",
                              16);
      for (const auto& r : p.rows)
        results.add({run_pk, bench_id(r.series_name), static_cast<std::int64_t>(r.idx), r.run_type,
                     text_or_null(r.aggregate_name), std::int64_t{r.repetition_index}, std::int64_t{r.repetitions},
                     std::int64_t{r.threads}, std::int64_t{r.iterations}, real_or_null(r.real_ns),
                     real_or_null(r.cpu_ns), r.time_unit, r.label, std::int64_t{r.error ? 1 : 0}, r.error_message,
                     r.counters});
      results.finish();
      sql::BulkInsert points(w,
                             "INSERT INTO points(series_id, started_ms, run_id, value_ns, min_ns, max_ns, n_reps,"
                             " n_errors, error_message, label, reps, on_main)",
                             12);
      for (auto& [name, a] : acc) {
        if (a.reps.empty() && !a.has_iteration) {
          // Aggregates-only output (--benchmark_report_aggregates_only): the median stands in.
          if (a.agg_median) a.reps.push_back(*a.agg_median);
          else if (a.agg_mean) a.reps.push_back(*a.agg_mean);
        }
        if (a.reps.empty() && a.n_errors == 0) continue;  // nothing measurable (e.g. BigO only)
        const std::int64_t sid = series_id(bench_id(name));
        const bool measured = !a.reps.empty();
        points.add({sid, p.started_ms, run_pk, measured ? Value{detect::median(a.reps)} : Value{},
                    measured ? Value{*std::min_element(a.reps.begin(), a.reps.end())} : Value{},
                    measured ? Value{*std::max_element(a.reps.begin(), a.reps.end())} : Value{},
                    static_cast<std::int64_t>(a.reps.size()), std::int64_t{a.n_errors}, a.error_message, a.label,
                    sql::Blob{pack_reps(a.reps)}, std::int64_t{on_main ? 1 : 0}});
        if (!on_main) continue;
        touched.push_back(sid);
        if (measured) fresh.emplace_back(sid, &a.reps);
      }
      points.finish();
      tx.commit();
      break;
    } catch (const sql::Conflict& e) {
      if (attempt == 5) throw;
      std::cerr << "shaderwatch-server: run " << p.run_key << " lost a race with another writer (" << e.what()
                << "); trying again\n";
    }
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
    // The run is stored; a detector failure must not lose it. Logged for the operator, and tried once
    // more: a broken database connection is made again by the first try's failure.
    for (int attempt = 1; attempt <= 2; ++attempt) {
      try {
        alerts = detect_after_ingest(run_pk, touched);
        break;
      } catch (const std::exception& e) {
        std::cerr << "shaderwatch-server: detection failed for run " << p.run_key << " (try " << attempt
                  << " of 2): " << e.what() << "\n";
        detector_->reset_all();
      }
    }
    detector_->reset_all();
    detect_ns_ += mono_ns() - t4;
  }
  res.body = {{"run", std::move(run)}, {"alerts", std::move(alerts)}};
  return res;
}

}  // namespace shaderwatch
