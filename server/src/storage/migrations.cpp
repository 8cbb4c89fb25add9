// The schema and its migrations.
#include "storage/migrations.h"

#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <shaderwatch/result_contract.h>

#include <nlohmann/json.hpp>

#include "common/driver_identity.h"
#include "common/rows_summary.h"
#include "common/statistics.h"
#include "storage/result_sets.h"

using nlohmann::json;

namespace shaderwatch {

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

// 5: a result row's status in a column of its own (contract::RowStatus's word), read until then from its
// error message on every query. Rows stored before it: 'pass' by the column's default, then each error
// row's status from its message and each pass whose check was retried a flake, as ingest reads a document
// without the status field.
void backfill_row_statuses(sql::Conn& c) {
  c.exec("UPDATE results SET status='" + std::string(contract::row_status_word(contract::RowStatus::Flake)) +
         "' WHERE error_occurred=0 AND " + c.json_number("counters", contract::kCheckRetriesCounter) + " > 0");
  std::vector<std::pair<std::int64_t, contract::RowStatus>> errors;
  auto& st = c.q("SELECT id, error_message FROM results WHERE error_occurred<>0");
  while (st.step()) errors.emplace_back(st.i64(0), contract::row_status_of_message(true, st.text(1)));
  st.reset();
  auto& update = c.q("UPDATE results SET status=? WHERE id=?");
  for (const auto& [id, status] : errors) {
    update.reset();
    update.bind(1, std::string(contract::row_status_word(status))).bind(2, id).run();
  }
}

// 8: each point's SPIR-V hash, read until now from its label ("spirv:<hash> stop:..."; contract::spirv_of_label)
// by every reader: from here on the column, filled at ingest from the document's compiled section.
void backfill_point_spirv(sql::Conn& c) {
  const std::string prefix(contract::kSpirvLabelPrefix);
  const std::string rest = "substr(label, " + std::to_string(prefix.size() + 1) + ")";
  c.exec("UPDATE points SET spirv=" + c.first_word(rest) + " WHERE label LIKE '" + prefix + "%'");
}

// 6: the `noise` kind of alert (a change in a series' run-to-run noise). SQLite cannot change a CHECK
// constraint in place: the table is made again with the rows, ids and indexes it had.
void allow_noise_alerts(sql::Conn& c) {
  c.exec(c.ddl(R"SQL(
CREATE TABLE alerts_v6(
  id INTEGER PRIMARY KEY,
  series_id INTEGER NOT NULL REFERENCES series(id),
  run_id INTEGER NOT NULL REFERENCES runs(id),
  prev_run_id INTEGER REFERENCES runs(id),
  started_ms INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK(kind IN ('correctness_regression','correctness_failure',
                                    'regression','improvement','ambiguous','noise')),
  severity INTEGER NOT NULL,
  state TEXT NOT NULL CHECK(state IN ('new','acknowledged','expected','fixed','invalid')),
  before_ns REAL, after_ns REAL, delta_pct REAL, noise_pct REAL, floor_pct REAL,
  score REAL, p_value REAL, n_before INTEGER, n_after INTEGER,
  cause TEXT NOT NULL, attribution TEXT NOT NULL,
  raised_by INTEGER NOT NULL REFERENCES runs(id),
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, state_by TEXT, note TEXT,
  UNIQUE(series_id, run_id, kind));
INSERT INTO alerts_v6 SELECT * FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_v6 RENAME TO alerts;
CREATE INDEX alerts_series ON alerts(series_id, started_ms);
CREATE INDEX alerts_state ON alerts(state, id);
CREATE INDEX alerts_run ON alerts(run_id);
)SQL"));
  c.follow_copied_ids("alerts");
}

// 9: a benchmark's rows of a run packed together (result_sets, row_shapes: common/stored_rows.h) instead of a
// table row each, a point's repetitions read from its pack instead of a copy of their own, and a point's spread
// (what the gate reads of its repetitions) kept beside its value. Rows are packed
// in document order; results never kept aggregate_unit, which only the rule for a point's repetitions reads
// (its median or mean aggregate, where a run has no iteration row): Google Benchmark writes both in time.
void pack_result_rows(sql::Conn& c) {
  std::map<std::string, std::int64_t> committed;
  ShapeIds shapes(committed);
  std::vector<std::int64_t> runs;
  auto& ids = c.q("SELECT id FROM runs ORDER BY id");
  while (ids.step()) runs.push_back(ids.i64(0));
  ids.reset();
  // A run at a time: read whole, then written (PostgreSQL's statements do not read and write mid-step).
  auto& st = c.q("SELECT benchmark_id, idx, run_type, aggregate_name, repetition_index, repetitions, threads,"
                 " iterations, real_ns, cpu_ns, time_unit, label, error_occurred, error_message, counters, status"
                 " FROM results WHERE run_id=? ORDER BY benchmark_id, idx");
  for (const auto run : runs) {
    std::vector<std::pair<std::int64_t, StoredRow>> read;
    st.reset();
    st.bind(1, run);
    while (st.step()) {
      StoredRow r;
      r.idx = st.i64(1);
      r.aggregate = st.text(2) == "aggregate";
      if (!st.null(3)) r.aggregate_name = st.text(3);
      if (r.aggregate && (r.aggregate_name == "median" || r.aggregate_name == "mean")) r.aggregate_unit = "time";
      r.repetition_index = st.i64(4);
      r.repetitions = st.i64(5);
      r.threads = st.i64(6);
      r.iterations = st.i64(7);
      if (!st.null(8)) r.real_ns = st.f64(8);
      if (!st.null(9)) r.cpu_ns = st.f64(9);
      r.time_unit = st.text(10);
      r.label = st.text(11);
      r.error = st.i64(12) != 0;
      r.error_message = st.text(13);
      r.counters = json::parse(st.text(14));
      r.status = contract::row_status_from_word(st.text(15)).value_or(contract::RowStatus::Fail);
      read.emplace_back(st.i64(0), std::move(r));
    }
    st.reset();
    std::vector<BenchmarkPack> packs;
    std::vector<StoredRow> rows;
    for (std::size_t i = 0; i < read.size(); ++i) {
      rows.push_back(std::move(read[i].second));
      if (i + 1 == read.size() || read[i + 1].first != read[i].first) {
        packs.push_back({read[i].first, pack_rows(rows), summarize_rows(rows)});
        rows.clear();
      }
    }
    if (!packs.empty()) insert_result_sets(c, run, packs, shapes);
  }
  // Each point's spread, from its repetitions as they were kept (doubles) and its value.
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> spreads;  // (series, run, spread)
  auto& pts = c.q("SELECT series_id, run_id, value_ns, reps FROM points WHERE value_ns IS NOT NULL");
  while (pts.step()) {
    const auto blob = pts.blob(3);
    std::vector<double> reps(blob.size() / sizeof(double));
    if (!reps.empty()) std::memcpy(reps.data(), blob.data(), reps.size() * sizeof(double));
    spreads.emplace_back(pts.i64(0), pts.i64(1), stats::repetition_spread(std::move(reps), pts.f64(2)));
  }
  pts.reset();
  auto& set = c.q("UPDATE points SET spread=? WHERE series_id=? AND run_id=?");
  for (const auto& [series, run, spread] : spreads) {
    set.reset();
    set.bind(1, spread).bind(2, series).bind(3, run).run();
  }
  c.exec("DROP TABLE results; ALTER TABLE points DROP COLUMN reps;");
}

// 11: on PostgreSQL, the two tables of a row per benchmark-run with 4-byte integers (every INTEGER is BIGINT there,
// for Unix ms: the ids and counts of these rows never need 8 bytes) and columns in an order that leaves no alignment
// padding (8-byte numbers, then 4- and 2-byte ones, then those of variable length): 474 -> 394 bytes a
// benchmark-run of 10 repetitions with its indexes (loadtest). SQLite keeps each integer in the bytes its value
// needs already: nothing to do there. The tables are made again, their rows copied, and analyzed (new tables have
// no statistics for the planner until autovacuum's next pass).
void narrow_postgres_integers(sql::Conn& c) {
  if (!c.shared()) return;
  c.exec(R"SQL(
CREATE TABLE points_v11(
  started_ms BIGINT NOT NULL,
  value_ns DOUBLE PRECISION, min_ns DOUBLE PRECISION, max_ns DOUBLE PRECISION,
  spread DOUBLE PRECISION NOT NULL DEFAULT 0,
  series_id INTEGER NOT NULL REFERENCES series(id),
  run_id INTEGER NOT NULL REFERENCES runs(id),
  n_reps INTEGER NOT NULL, n_errors INTEGER NOT NULL,
  on_main SMALLINT NOT NULL DEFAULT 1,
  error_message TEXT NOT NULL, label TEXT NOT NULL, spirv TEXT NOT NULL DEFAULT '');
INSERT INTO points_v11(started_ms, value_ns, min_ns, max_ns, spread, series_id, run_id, n_reps, n_errors, on_main,
                       error_message, label, spirv)
  SELECT started_ms, value_ns, min_ns, max_ns, spread, series_id, run_id, n_reps, n_errors, on_main,
         error_message, label, spirv FROM points;
DROP TABLE points;
ALTER TABLE points_v11 RENAME TO points;
ALTER TABLE points ADD PRIMARY KEY(series_id, started_ms, run_id);
CREATE INDEX points_run ON points(run_id, series_id);
CREATE TABLE result_sets_v11(
  p25_ns DOUBLE PRECISION, p75_ns DOUBLE PRECISION, pct_of_roofline DOUBLE PRECISION,
  pct_of_copy_peak DOUBLE PRECISION, err_bound_ratio DOUBLE PRECISION, spread_pct DOUBLE PRECISION,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  first_idx INTEGER NOT NULL,
  shape_id INTEGER NOT NULL REFERENCES row_shapes(id),
  has_iteration SMALLINT NOT NULL,
  packed BYTEA, outcome TEXT NOT NULL, message TEXT NOT NULL);
INSERT INTO result_sets_v11(p25_ns, p75_ns, pct_of_roofline, pct_of_copy_peak, err_bound_ratio, spread_pct, run_id,
                            benchmark_id, first_idx, shape_id, has_iteration, packed, outcome, message)
  SELECT p25_ns, p75_ns, pct_of_roofline, pct_of_copy_peak, err_bound_ratio, spread_pct, run_id,
         benchmark_id, first_idx, shape_id, has_iteration, packed, outcome, message FROM result_sets;
DROP TABLE result_sets;
ALTER TABLE result_sets_v11 RENAME TO result_sets;
ALTER TABLE result_sets ADD PRIMARY KEY(run_id, benchmark_id);
ANALYZE points;
ANALYZE result_sets;
)SQL");
}

// 12: on PostgreSQL, a point's key by run (a run's points are read together), and a series' points found by an
// index on (series, time) alone. The old key (series, time, run) took 67.6 bytes a point on the loadtest's 973 runs
// of one GPU: 36 an entry, its pages about half full, as each post adds one entry to the end of every series' range
// and a split in the middle of a page leaves halves that no later post fills. An entry of two 8-byte words (4-byte
// series, 8-byte time) is one PostgreSQL's B-tree can recognise as an ascending insert after an equal leading column
// (nbtsplitloc.c, _bt_afternewitemoff) and split leaving the left page full: 40.9 bytes a point on the same load.
// Points of one series at one millisecond stay apart by the run in the key; the index gives them, then they are
// sorted by run. SQLite's points are a table clustered on their key already: nothing to do there.
void narrow_postgres_point_key(sql::Conn& c) {
  if (!c.shared()) return;
  c.exec(R"SQL(
ALTER TABLE points DROP CONSTRAINT points_pkey;
DROP INDEX points_run;
ALTER TABLE points ADD PRIMARY KEY(run_id, series_id);
CREATE INDEX points_series ON points(series_id, started_ms);
ANALYZE points;
)SQL");
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
    // 5: the row status column; see backfill_row_statuses.
    {R"SQL(
ALTER TABLE results ADD COLUMN status TEXT NOT NULL DEFAULT 'pass'
  CHECK(status IN ('pass','flake','skip','xfail','xpass','unsupported','fail'));
)SQL",
     backfill_row_statuses},
    // 6: see allow_noise_alerts.
    {"", allow_noise_alerts},
    // 7: what the driver compiled of each kernel in a run (contract::kCompiledSection): one row per distinct
    // entry, shared by the runs that compiled the same (most of them), and each run's kernel pointing at it.
    {R"SQL(
CREATE TABLE compiled(
  id INTEGER PRIMARY KEY,
  sha256 TEXT NOT NULL UNIQUE,         -- of spirv, input and pipelines
  spirv TEXT NOT NULL, input TEXT NOT NULL,
  pipelines TEXT NOT NULL);            -- JSON: [[{executable, subgroup_size, statistics: [{name, format, value}]}]]
CREATE TABLE run_compiled(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  kernel TEXT NOT NULL,                -- family/variant, as in benchmarks
  compiled_id INTEGER NOT NULL REFERENCES compiled(id),
  PRIMARY KEY(run_id, kernel)) WITHOUT ROWID;
)SQL"},
    // 8: a point's SPIR-V hash in a column (see backfill_point_spirv), and what each run's kernel computes
    // (contract format 3's "operation"; '' for runs stored before, which the rankings read by format 2's catalog).
    {R"SQL(
ALTER TABLE points ADD COLUMN spirv TEXT NOT NULL DEFAULT '';
ALTER TABLE run_compiled ADD COLUMN operation TEXT NOT NULL DEFAULT '';
)SQL",
     backfill_point_spirv},
    // 9: see pack_result_rows.
    {R"SQL(
CREATE TABLE row_shapes(
  id INTEGER PRIMARY KEY,
  sha256 TEXT NOT NULL UNIQUE,         -- of shape
  shape BLOB NOT NULL);                -- common/stored_rows.h: the rows of a pack but their numbers
CREATE TABLE result_sets(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  first_idx INTEGER NOT NULL,          -- the idx of its first row; the shape keeps the others' from it
  shape_id INTEGER NOT NULL REFERENCES row_shapes(id),
  packed BLOB,                         -- the rows' numbers; NULL once pruned (shaderwatch-server prune)
  -- common/rows_summary.h: what the pages read of the rows, kept when the pack is pruned
  has_iteration INTEGER NOT NULL, outcome TEXT NOT NULL, message TEXT NOT NULL,
  p25_ns REAL, p75_ns REAL, pct_of_roofline REAL, pct_of_copy_peak REAL, err_bound_ratio REAL, spread_pct REAL,
  PRIMARY KEY(run_id, benchmark_id));  -- with a rowid: SQLite keeps a 1-2 KB pack in its page, not an overflow page
ALTER TABLE points ADD COLUMN spread REAL NOT NULL DEFAULT 0;  -- stats::repetition_spread of its repetitions
)SQL",
     pack_result_rows},
    // 10: what bounds each run's kernel's time (contract format 4's "limit"; '' for runs stored before: not known).
    {R"SQL(
ALTER TABLE run_compiled ADD COLUMN bound_by TEXT NOT NULL DEFAULT '';
)SQL"},
    // 11: see narrow_postgres_integers.
    {"", narrow_postgres_integers},
    // 12: see narrow_postgres_point_key.
    {"", narrow_postgres_point_key},
};

}  // namespace

// Every pending migration in one transaction, under a lock, so server processes starting together on one
// PostgreSQL database migrate it once.
void migrate(sql::Conn& writer) {
  constexpr int known = static_cast<int>(std::size(kMigrations));
  static_assert(known == kSchemaVersion);
  sql::Tx tx(writer);
  writer.lock_in_transaction(sql::Conn::kSchemaLock);
  const int have = writer.schema_version();
  if (have > known)
    throw std::runtime_error("database schema version " + std::to_string(have) +
                             " is newer than this server (" + std::to_string(known) + ")");
  if (have == known) return;
  for (int v = have; v < known; ++v) {
    if (*kMigrations[v].sql) writer.exec(writer.ddl(kMigrations[v].sql));
    if (kMigrations[v].rewrite) kMigrations[v].rewrite(writer);
  }
  writer.set_schema_version(known);
  tx.commit();
}

}  // namespace shaderwatch
