#include "ingest/run_writer.h"

#include <algorithm>
#include <iostream>
#include <optional>

#include "common/client_error.h"
#include "common/clock.h"
#include "common/iso8601.h"
#include "common/statistics.h"
#include "ingest/benchmark_name.h"
#include "ingest/ingest_parse.h"
#include "ingest/point_grouping.h"
#include "storage/bulk_insert.h"
#include "storage/main_history.h"
#include "storage/result_sets.h"

namespace shaderwatch {

RunWriter::RunWriter(Database& db, RunWriterOptions opts) : db_(db), opts_(std::move(opts)) {
  auto lk = db_.write();
  auto& st = lk.conn().q("SELECT COUNT(*), COALESCE(SUM(n_results),0) FROM runs");
  if (st.step()) {
    n_runs_ = static_cast<std::uint64_t>(st.i64(0));
    n_results_ = static_cast<std::uint64_t>(st.i64(1));
  }
  st.reset();
}

namespace {

// One transaction's ids: the committed caches, and the ids it created itself, cached only once it commits
// (a rolled-back id is not real).
struct Ids {
  sql::Conn& w;
  const std::unordered_map<std::string, std::int64_t>& bench_cache;
  const std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t>& series_cache;
  std::int64_t gpu_id = 0;
  std::string new_gpu_key;  // set where this transaction inserted or first read the GPU
  std::unordered_map<std::string, std::int64_t> new_bench;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> new_series;

  std::int64_t bench_id(const std::string& name) {
    if (auto it = bench_cache.find(name); it != bench_cache.end()) return it->second;
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
  }

  std::int64_t series_id(std::int64_t bid) {
    const auto key = std::make_pair(bid, gpu_id);
    if (auto it = series_cache.find(key); it != series_cache.end()) return it->second;
    if (auto it = new_series.find(key); it != new_series.end()) return it->second;
    w.q("INSERT INTO series(benchmark_id, gpu_id) VALUES(?,?) ON CONFLICT DO NOTHING").bind(1, bid).bind(2, gpu_id).run();
    auto& s = w.q("SELECT id FROM series WHERE benchmark_id=? AND gpu_id=?");
    s.bind(1, bid).bind(2, gpu_id);
    s.step();
    const auto id = s.i64(0);
    s.reset();
    new_series.emplace(key, id);
    return id;
  }
};

std::string gpu_key(const Parsed& p) { return p.vendor_id + '\x1f' + p.device_id + '\x1f' + p.device_name; }

std::int64_t insert_gpu(sql::Conn& w, const Parsed& p) {
  w.q("INSERT INTO gpus(vendor_id, device_id, name, device_type) VALUES(?,?,?,?) ON CONFLICT DO NOTHING")
      .bind(1, p.vendor_id).bind(2, p.device_id).bind(3, p.device_name).bind(4, p.device_type).run();
  auto& g = w.q("SELECT id FROM gpus WHERE vendor_id=? AND device_id=? AND name=?");
  g.bind(1, p.vendor_id).bind(2, p.device_id).bind(3, p.device_name);
  g.step();
  const auto id = g.i64(0);
  g.reset();
  return id;
}

// The run's own row: its new id, or nullopt with `stored_pk` set where the same run id and body are stored
// already (by an earlier post, or by another server process that committed first). ClientError 409 for
// the same id with another body.
std::optional<std::int64_t> insert_run(sql::Conn& w, const Parsed& p, std::int64_t gpu_id, const std::string& posted_by,
                                       std::int64_t& stored_pk) {
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
  const std::int64_t run_pk = inserted ? ins.i64(0) : 0;
  ins.reset();
  if (inserted) return run_pk;
  auto& ex = w.q("SELECT id, body_sha256 FROM runs WHERE run_key=?");
  ex.bind(1, p.run_key);
  if (!ex.step()) throw sql::Conflict("run id '" + p.run_key + "' was being stored by another process");
  stored_pk = ex.i64(0);
  const std::string sha = ex.text(1);
  ex.reset();
  // The same body is answered as stored; another body is a conflict.
  if (sha != p.sha) throw ClientError(409, "run id '" + p.run_key + "' already stored with a different body", "run.id");
  return std::nullopt;
}

// Every row as posted: one pack per benchmark.
void insert_rows(sql::Conn& w, const std::map<std::string, BenchmarkRowGroup>& groups, std::int64_t run_pk, Ids& ids,
                 ShapeIds& shapes) {
  std::vector<BenchmarkPack> packs;
  packs.reserve(groups.size());
  for (const auto& [name, g] : groups) packs.push_back({ids.bench_id(name), g.packed, g.summary});
  insert_result_sets(w, run_pk, packs, shapes);
}

// One point per benchmark: the run's value is the median of its repetitions. Main-branch points are what
// detection looks at next (`out.touched`, `out.fresh`). Its label is left empty: the run page reads it from the
// pack's shape (point_label), where it is kept once for every run of the suite.
void insert_points(sql::Conn& w, const Parsed& p, const std::map<std::string, BenchmarkRowGroup>& groups,
                   std::int64_t run_pk, bool on_main, Ids& ids, WrittenRun& out, MainHistory::Added& main_points) {
  using sql::Value;
  sql::BulkInsert points(w,
                         "INSERT INTO points(series_id, started_ms, run_id, value_ns, min_ns, max_ns, n_reps,"
                         " n_errors, error_message, label, on_main, spirv, spread)",
                         13);
  for (const auto& [name, g] : groups) {
    if (!g.point) continue;
    const PointRows& a = *g.point;
    if (a.reps.empty() && a.n_errors == 0) continue;  // nothing measurable (e.g. BigO only)
    const std::int64_t sid = ids.series_id(ids.bench_id(name));
    const bool measured = !a.reps.empty();
    const double value = measured ? stats::median(a.reps) : 0;
    const double spread = stats::repetition_spread(a.reps, value);
    points.add({sid, p.started_ms, run_pk, measured ? Value{value} : Value{},
                measured ? Value{*std::min_element(a.reps.begin(), a.reps.end())} : Value{},
                measured ? Value{*std::max_element(a.reps.begin(), a.reps.end())} : Value{},
                static_cast<std::int64_t>(a.reps.size()), std::int64_t{a.n_errors}, a.error_message, std::string(),
                std::int64_t{on_main ? 1 : 0}, std::string_view(a.spirv), spread});
    if (!on_main) continue;
    out.touched.push_back(sid);
    if (!measured) continue;
    out.fresh.emplace_back(sid, a.reps);
    main_points.push_back({sid, MainPoint{p.started_ms, run_pk, value, spread, a.spirv}});
  }
  points.finish();
}

// What the driver compiled of each kernel: an entry another run stored already is pointed at, not copied.
void insert_compiled(sql::Conn& w, const Parsed& p, std::int64_t run_pk) {
  for (const auto& k : p.compiled) {
    w.q("INSERT INTO compiled(sha256, spirv, input, pipelines) VALUES(?,?,?,?) ON CONFLICT DO NOTHING")
        .bind(1, k.sha).bind(2, k.spirv).bind(3, k.input).bind(4, k.pipelines).run();
    auto& id = w.q("SELECT id FROM compiled WHERE sha256=?");
    id.bind(1, k.sha);
    id.step();
    const auto compiled_id = id.i64(0);
    id.reset();
    w.q("INSERT INTO run_compiled(run_id, kernel, compiled_id, operation, bound_by) VALUES(?,?,?,?,?)")
        .bind(1, run_pk).bind(2, k.kernel).bind(3, compiled_id).bind(4, k.operation).bind(5, k.limit).run();
  }
}

}  // namespace

WrittenRun RunWriter::write(std::string_view body, const std::string& posted_by) {
  const auto t0 = mono_ns();
  Parsed p = parse_body(body, opts_.max_nesting);
  if (p.branch.empty()) p.branch = opts_.main_branch;
  // Only main-branch runs form levels, change points and alerts; other branches are judged against them.
  const bool on_main = p.branch == opts_.main_branch;
  const auto t1 = mono_ns();
  parse_ns_ += t1 - t0;
  const auto groups = group_rows(p.rows);

  std::optional<WriteLock> lk(db_.write());
  const auto t2 = mono_ns();
  auto& w = lk->conn();
  const std::string gkey = gpu_key(p);
  // Another server process on the same PostgreSQL database may write the same names, or the same run,
  // at once: a lost race (deadlock, serialisation) runs the transaction again.
  for (int attempt = 1;; ++attempt) {
    WrittenRun out;
    Ids ids{w, bench_ids_, series_ids_};
    try {
      sql::Tx tx(w);
      if (auto it = gpu_ids_.find(gkey); it != gpu_ids_.end()) {
        ids.gpu_id = it->second;
      } else {
        ids.gpu_id = insert_gpu(w, p);
        ids.new_gpu_key = gkey;
      }
      std::int64_t stored_pk = 0;
      const auto run_pk = insert_run(w, p, ids.gpu_id, posted_by, stored_pk);
      if (!run_pk) {
        WrittenRun stored;
        stored.run_pk = stored_pk;
        stored.run_key = p.run_key;
        stored.started_ms = p.started_ms;
        return stored;
      }
      ShapeIds shapes(shape_ids_);
      insert_rows(w, groups, *run_pk, ids, shapes);
      MainHistory::Added main_points;
      insert_points(w, p, groups, *run_pk, on_main, ids, out, main_points);
      insert_compiled(w, p, *run_pk);
      // The points held in memory follow the commit; readers read the database while it is under way.
      MainHistory* held = db_.main_history();
      if (held) held->begin_write(main_points);
      try {
        tx.commit();
      } catch (...) {
        if (held) held->abandon_write(main_points);
        throw;
      }
      if (held) held->end_write(main_points);
      if (held && on_main) held->written(ids.gpu_id, *run_pk);
      // Only now are the new ids real.
      bench_ids_.insert(ids.new_bench.begin(), ids.new_bench.end());
      series_ids_.insert(ids.new_series.begin(), ids.new_series.end());
      if (!ids.new_gpu_key.empty()) gpu_ids_.emplace(ids.new_gpu_key, ids.gpu_id);
      shapes.commit();
      ingest_ns_ += mono_ns() - t2;
      n_runs_ += 1;
      n_results_ += p.rows.size();
      out.created = true;
      out.run_pk = *run_pk;
      out.run_key = p.run_key;
      out.started_ms = p.started_ms;
      out.rows = p.rows.size();
      return out;
    } catch (const sql::Conflict& e) {
      if (attempt == 5) throw;
      std::cerr << "shaderwatch-server: run " << p.run_key << " lost a race with another writer (" << e.what()
                << "); trying again\n";
    }
  }
}

}  // namespace shaderwatch
