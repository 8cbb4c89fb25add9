// The read side's browsing endpoints (GPUs, drivers, benchmarks, runs, series, alerts) and the write side's
// answers; compare, verdict and rankings have files of their own (queries_*.cpp).
#include "queries/queries.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <variant>

#include <shaderwatch/result_contract.h>

#include "common/clock.h"
#include "common/iso8601.h"
#include "detection/analysis.h"
#include "ingest/benchmark_name.h"
#include "common/driver_identity.h"
#include "queries/alert_loader.h"
#include "queries/run_loader.h"
#include "queries/query_helpers.h"
#include "queries/run_counters.h"
#include "storage/result_sets.h"

using nlohmann::json;

namespace shaderwatch {

namespace {

// Filters appended as fixed SQL fragments; only values are bound.
struct Where {
  std::string sql;
  std::vector<std::variant<std::int64_t, std::string>> args;
  void add(std::string_view frag, std::variant<std::int64_t, std::string> v) {
    sql += sql.empty() ? " WHERE " : " AND ";
    sql += frag;
    args.push_back(std::move(v));
  }
  void add_fixed(std::string_view frag) {  // a fragment with no value to bind (built from constants)
    sql += sql.empty() ? " WHERE " : " AND ";
    sql += frag;
  }
  int bind(sql::Stmt& st, int from = 1) const {
    int i = from;
    for (const auto& a : args) {
      if (std::holds_alternative<std::int64_t>(a)) st.bind(i++, std::get<std::int64_t>(a));
      else st.bind(i++, std::get<std::string>(a));
    }
    return i;
  }
};

// Covariate changes: where a main run differs from main's run before it in anything but the commit (a branch's
// runs are drawn apart from main's line and change nothing on it: main's SPIR-V changes where main's did). A driver
// is its build: its label (name, version, driver_info) and its UUID. What ran: the SPIR-V, the input and, where both
// runs say, the statistics of the driver's compilation.
std::vector<CovariateChange> covariate_changes(const Series& s, const std::string& main_branch) {
  static const std::pair<const char*, std::string SeriesPoint::*> kCov[] = {
      {"driver", &SeriesPoint::driver},         {"driver_uuid", &SeriesPoint::driver_uuid},
      {"api_version", &SeriesPoint::api_version}, {"harness_revision", &SeriesPoint::harness_revision},
      {"runner", &SeriesPoint::runner},         {"spirv", &SeriesPoint::spirv},
      {"input", &SeriesPoint::input}};
  const auto& pts = s.points;
  std::vector<CovariateChange> changes;
  std::optional<std::size_t> prev;  // main's run before
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].branch != main_branch) continue;
    const std::optional<std::size_t> before = std::exchange(prev, i);
    if (!before) continue;
    const SeriesPoint &was = pts[*before], &now = pts[i];
    for (const auto& [field, member] : kCov)
      if (now.*member != was.*member && !(now.*member).empty() && !(was.*member).empty())
        changes.push_back({i, now.run_id, field, was.*member, now.*member});
    const auto a = s.compiled.find(was.compiled_id), b = s.compiled.find(now.compiled_id);
    if (a == s.compiled.end() || b == s.compiled.end() || a->second.statistics.empty() || b->second.statistics.empty())
      continue;
    auto [x, y] = statistics_difference(a->second.statistics, b->second.statistics);
    if (!x.empty()) changes.push_back({i, now.run_id, "statistics", std::move(x), std::move(y)});
  }
  return changes;
}

// The compilations the points name, read once each.
std::map<std::int64_t, Compilation> load_compiled(sql::Conn& c, const std::vector<SeriesPoint>& pts) {
  std::map<std::int64_t, Compilation> out;
  auto& st = c.q("SELECT spirv, input, pipelines FROM compiled WHERE id=?");
  for (const auto& p : pts) {
    if (!p.compiled_id || out.count(p.compiled_id)) continue;
    st.reset();
    st.bind(1, p.compiled_id);
    if (st.step()) out[p.compiled_id] = {st.text(0), st.text(1), flatten_statistics(st.text(2))};
  }
  st.reset();
  return out;
}
}  // namespace

GpuList Queries::gpus(const Params& q) {
  allow_only(q, {});
  auto c = db_.reader();
  auto& st = c->q(
      "SELECT g.id, g.vendor_id, g.device_id, g.name, g.device_type, COUNT(r.id), MIN(r.started_at),"
      " MAX(r.started_at) FROM gpus g LEFT JOIN runs r ON r.gpu_id=g.id GROUP BY g.id ORDER BY g.id");
  GpuList out;
  while (st.step())
    out.gpus.push_back({{st.i64(0), st.text(1), st.text(2), st.text(3), st.text(4)}, st.i64(5), st.text(6), st.text(7)});
  return out;
}

DriverList Queries::drivers(const Params& q) {
  allow_only(q, {"gpu_id"});
  Where wh;
  if (q.count("gpu_id")) wh.add("gpu_id=?", int_param(q, "gpu_id", 0, 0, INT64_MAX));
  auto c = db_.reader();
  auto& st = c->q("SELECT gpu_id, driver_name, driver_version, driver_info, api_version, COUNT(*),"
                  " MIN(started_at), MAX(started_at) FROM runs" + wh.sql +
                  " GROUP BY gpu_id, driver_name, driver_version, driver_info, api_version"
                  " ORDER BY gpu_id, MIN(started_ms)");
  wh.bind(st);
  DriverList out;
  while (st.step())
    out.drivers.push_back({st.i64(0), st.text(1), st.text(2), st.text(3), st.text(4), st.i64(5), st.text(6), st.text(7)});
  return out;
}

BenchmarkPage Queries::benchmarks(const Params& q) {
  allow_only(q, {"family", "name_contains", "limit", "offset"});
  Where wh;
  const auto limit = int_param(q, "limit", 1000, 1, 10000), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  auto c = db_.reader();
  if (auto f = opt(q, "family")) wh.add("family=?", *f);
  if (auto n = opt(q, "name_contains")) wh.add(c->contains_param("name"), *n);
  auto& st = c->q("SELECT id, name, family, variant, config FROM benchmarks" + wh.sql +
                  " ORDER BY name LIMIT ? OFFSET ?");
  const int i = wh.bind(st);
  st.bind(i, limit).bind(i + 1, offset);
  BenchmarkPage out{{}, limit, offset};
  while (st.step()) out.benchmarks.push_back({st.i64(0), st.text(1), st.text(2), st.text(3), st.text(4)});
  return out;
}

RunPage Queries::runs(const Params& q) {
  allow_only(q, {"gpu_id", "commit", "branch", "runner", "driver_version", "since", "until", "limit", "offset"});
  Where wh;
  if (q.count("gpu_id")) wh.add("gpu_id=?", int_param(q, "gpu_id", 0, 0, INT64_MAX));
  if (auto v = opt(q, "commit")) wh.add("commit_id=?", *v);
  if (auto v = opt(q, "branch")) wh.add("branch=?", *v);
  if (auto v = opt(q, "runner")) wh.add("runner=?", *v);
  if (auto v = opt(q, "driver_version")) wh.add("driver_version=?", *v);
  if (q.count("since")) wh.add("started_ms>=?", time_param(q, "since", 0));
  if (q.count("until")) wh.add("started_ms<?", time_param(q, "until", 0));
  const auto limit = int_param(q, "limit", 100, 1, 1000), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  auto c = db_.reader();
  std::vector<std::int64_t> ids;
  {
    auto& st = c->q("SELECT id FROM runs" + wh.sql + " ORDER BY started_ms DESC, id DESC LIMIT ? OFFSET ?");
    const int i = wh.bind(st);
    st.bind(i, limit).bind(i + 1, offset);
    while (st.step()) ids.push_back(st.i64(0));
  }
  RunPage page{{}, limit, offset, std::nullopt};
  for (auto id : ids) page.runs.push_back(load_run_summary(*c, id));
  if (static_cast<std::int64_t>(ids.size()) == limit) page.next_offset = offset + limit;
  return page;
}

RunDetail Queries::run(const std::string& key) {
  auto c = db_.reader();
  const auto pk = run_pk(*c, key, "run_id");
  RunDetail out{load_run_summary(*c, pk), {}, {}, {}};
  auto& st = c->q("SELECT p.series_id, bm.name, p.value_ns, p.min_ns, p.max_ns, p.n_reps, p.n_errors,"
                  " p.error_message, p.label FROM points p JOIN series s ON s.id=p.series_id"
                  " JOIN benchmarks bm ON bm.id=s.benchmark_id WHERE p.run_id=? ORDER BY bm.name");
  st.bind(1, pk);
  auto counters = run_counters(*c, pk);
  // A point stored with no label (every one since 2026-12-07) shows its pack's: point_label of its shape.
  const RunShapes shapes = run_shapes(*c, pk, true);
  std::map<std::string_view, std::string> shape_labels;
  for (const auto& [name, id] : shapes.benchmarks) shape_labels.emplace(name, point_label(shapes.shapes.at(id)));
  while (st.step()) {
    RunPointEntry p{st.i64(0), st.text(1), opt_f64(st, 2), opt_f64(st, 3), opt_f64(st, 4), st.i64(5), st.i64(6),
                    st.text(7), st.text(8), std::nullopt};
    if (const auto it = shape_labels.find(p.benchmark); p.label.empty() && it != shape_labels.end()) p.label = it->second;
    if (auto it = counters.find(p.benchmark); it != counters.end()) {
      if (it->second.outcome == RowStatus::Flake) p.error_message = it->second.message;  // a pass: says how many checks failed first
      p.counters = std::move(it->second);
      counters.erase(it);
    }
    out.points.push_back(std::move(p));
  }
  // Benchmarks with rows but no point: the negative control's expected outcome, kernels the device
  // could not run.
  for (auto& [name, k] : counters) out.not_measured.push_back({name, k.outcome, std::move(k.message)});
  auto& compiled = c->q("SELECT rc.kernel, cm.spirv, cm.input, cm.pipelines, rc.bound_by FROM run_compiled rc"
                        " JOIN compiled cm ON cm.id=rc.compiled_id WHERE rc.run_id=? ORDER BY rc.kernel");
  compiled.bind(1, pk);
  std::map<std::string, std::string, std::less<>> limits;  // by kernel
  while (compiled.step()) {
    out.compiled.push_back({compiled.text(0), {compiled.text(1), compiled.text(2), flatten_statistics(compiled.text(3))}});
    limits.emplace(compiled.text(0), compiled.text(4));
  }
  for (auto& p : out.points)
    if (const auto it = limits.find(split_name(p.benchmark).kernel()); it != limits.end()) p.limit = it->second;
  return out;
}

RunResults Queries::run_results(const std::string& key, const Params& q) {
  allow_only(q, {"benchmark", "run_type", "limit", "offset"});
  // Paged: a run may hold 200,000 rows (50 MB as one answer; 8 readers took the server to 5.9 GB).
  const auto limit = int_param(q, "limit", 1000, 1, 10000), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  auto c = db_.reader();
  const auto pk = run_pk(*c, key, "run_id");
  const auto benchmark = opt(q, "benchmark");
  const auto run_type = opt(q, "run_type");
  if (run_type && *run_type != "iteration" && *run_type != "aggregate")
    throw ClientError(400, "must be iteration or aggregate", "run_type");
  std::vector<ResultRow> rows;
  for (auto& b : run_rows(*c, pk)) {
    if (benchmark && b.name != *benchmark) continue;
    for (auto& r : b.rows) {
      const char* type = r.aggregate ? "aggregate" : "iteration";
      if (run_type && *run_type != type) continue;
      rows.push_back({r.idx, b.name, type, std::move(r.aggregate_name), r.repetition_index, r.repetitions, r.threads,
                      r.iterations, r.real_ns, r.cpu_ns, std::move(r.time_unit), std::move(r.label), r.error,
                      std::move(r.error_message), r.status, std::move(r.counters)});
    }
  }
  std::sort(rows.begin(), rows.end(), [](const ResultRow& a, const ResultRow& b) { return a.index < b.index; });
  RunResults out{key, {}, limit, offset, std::nullopt};
  auto& pruned = c->q(benchmark ? "SELECT COUNT(*) FROM result_sets rs JOIN benchmarks bm ON bm.id=rs.benchmark_id"
                                  " WHERE rs.run_id=? AND rs.packed IS NULL AND bm.name=?"
                                : "SELECT COUNT(*) FROM result_sets WHERE run_id=? AND packed IS NULL");
  pruned.bind(1, pk);
  if (benchmark) pruned.bind(2, *benchmark);
  if (pruned.step()) out.pruned_benchmarks = pruned.i64(0);
  pruned.reset();
  const auto from = std::min<std::size_t>(rows.size(), static_cast<std::size_t>(offset));
  const auto to = std::min<std::size_t>(rows.size(), from + static_cast<std::size_t>(limit));
  out.results.assign(std::make_move_iterator(rows.begin() + from), std::make_move_iterator(rows.begin() + to));
  if (to < rows.size()) out.next_offset = offset + limit;
  return out;
}

SeriesPage Queries::series_list(const Params& q) {
  allow_only(q, {"benchmark", "family", "gpu_id", "limit", "offset"});
  Where wh;
  if (auto v = opt(q, "benchmark")) wh.add("bm.name=?", *v);
  if (auto v = opt(q, "family")) wh.add("bm.family=?", *v);
  if (q.count("gpu_id")) wh.add("s.gpu_id=?", int_param(q, "gpu_id", 0, 0, INT64_MAX));
  const auto limit = int_param(q, "limit", 1000, 1, 10000), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  auto c = db_.reader();
  auto& st = c->q("SELECT s.id, bm.name, g.id, g.vendor_id, g.device_id, g.name, g.device_type"
                  " FROM series s JOIN benchmarks bm ON bm.id=s.benchmark_id JOIN gpus g ON g.id=s.gpu_id" +
                  wh.sql + " ORDER BY s.id LIMIT ? OFFSET ?");
  const int i = wh.bind(st);
  st.bind(i, limit).bind(i + 1, offset);
  SeriesPage out{{}, limit, offset};
  while (st.step())
    out.series.push_back({st.i64(0), st.text(1), {st.i64(2), st.text(3), st.text(4), st.text(5), st.text(6)}});
  return out;
}

Series Queries::series(std::int64_t id, const Params& q) {
  allow_only(q, {"limit", "until"});
  const auto limit = int_param(q, "limit", 1000, 1, 10000);
  const auto until = time_param(q, "until", INT64_MAX);
  auto c = db_.reader();
  Series out;
  out.id = id;
  std::int64_t benchmark_id = 0;
  {
    auto& st = c->q("SELECT bm.name, bm.family, bm.variant, bm.config, g.id, g.vendor_id, g.device_id,"
                    " g.name, g.device_type, bm.id FROM series s JOIN benchmarks bm ON bm.id=s.benchmark_id"
                    " JOIN gpus g ON g.id=s.gpu_id WHERE s.id=?");
    st.bind(1, id);
    if (!st.step()) throw ClientError(404, "no series with id " + std::to_string(id), "id");
    benchmark_id = st.i64(9);
    out.benchmark = st.text(0);
    out.family = st.text(1);
    out.variant = st.text(2);
    out.config = st.text(3);
    out.gpu = {st.i64(4), st.text(5), st.text(6), st.text(7), st.text(8)};
  }
  std::vector<std::int64_t> run_pks;  // each point's run
  {
    auto& st = c->q(
        "SELECT r.run_key, r.started_at, r.commit_id, r.branch, r.runner, r.driver_name, r.driver_version,"
        " r.api_version, r.harness_revision, p.value_ns, p.min_ns, p.max_ns, p.n_reps, p.n_errors,"
        " p.error_message, p.run_id, r.driver_info, r.driver_uuid, p.spirv, cm.id, cm.spirv, cm.input"
        " FROM points p JOIN runs r ON r.id=p.run_id"
        " LEFT JOIN run_compiled rc ON rc.run_id=p.run_id AND rc.kernel=? LEFT JOIN compiled cm ON cm.id=rc.compiled_id"
        " WHERE p.series_id=? AND p.started_ms<? ORDER BY p.started_ms DESC, p.run_id DESC LIMIT ?");
    st.bind(1, split_name(out.benchmark).kernel()).bind(2, id).bind(3, until).bind(4, limit);
    while (st.step()) {
      const bool compiled = !st.null(19);
      out.points.push_back({st.text(0), st.text(1), st.text(2), st.text(3), st.text(4), st.text(5), st.text(6),
                            st.text(7), st.text(8), opt_f64(st, 9), opt_f64(st, 10), opt_f64(st, 11), st.i64(12),
                            st.i64(13), st.text(14), st.text(16), st.text(17),
                            DriverIdentity{st.text(5), st.text(6), st.text(16), st.text(17)}.label(), NAN, NAN,
                            compiled ? st.text(20) : st.text(18),
                            compiled ? st.text(21) : std::string(), compiled ? st.i64(19) : 0});
      run_pks.push_back(st.i64(15));
    }
  }
  std::reverse(out.points.begin(), out.points.end());
  std::reverse(run_pks.begin(), run_pks.end());
  // The run's own sample spread (p25-p75), where its rows carry the quartile counters.
  const auto quartiles = run_quartiles(*c, run_pks, benchmark_id);
  for (std::size_t i = 0; i < out.points.size(); ++i)
    std::tie(out.points[i].p25_ns, out.points[i].p75_ns) = quartiles.at(run_pks[i]);
  out.compiled = load_compiled(*c, out.points);
  out.covariate_changes = covariate_changes(out, opts_.main_branch);
  {
    std::vector<std::int64_t> ids;
    auto& st = c->q("SELECT id FROM alerts WHERE series_id=? ORDER BY started_ms, id");
    st.bind(1, id);
    while (st.step()) ids.push_back(st.i64(0));
    out.change_points = load_alerts(*c, ids);
  }
  return out;
}

AlertPage Queries::alerts(const Params& q) {
  allow_only(q, {"state", "kind", "gpu_id", "benchmark", "family", "cause", "run_id", "raised_by", "limit", "offset"});
  Where wh;
  if (auto v = opt(q, "state")) {
    // "open": the states that still gate (new, acknowledged).
    if (*v == "open") wh.add_fixed("a.state IN " + open_alert_states_sql());
    else if (!kAlertStates.count(*v))
      throw ClientError(400, "must be open or one of new, acknowledged, expected, fixed, invalid", "state");
    else wh.add("a.state=?", *v);
  }
  if (auto v = opt(q, "kind")) {
    if (!detect::parse_alert_kind(*v)) throw ClientError(400, "unknown alert kind", "kind");
    wh.add("a.kind=?", *v);
  }
  if (q.count("gpu_id")) wh.add("s.gpu_id=?", int_param(q, "gpu_id", 0, 0, INT64_MAX));
  if (auto v = opt(q, "benchmark")) wh.add("bm.name=?", *v);
  if (auto v = opt(q, "family")) wh.add("bm.family=?", *v);
  if (auto v = opt(q, "cause")) wh.add("a.cause=?", *v);
  if (auto v = opt(q, "run_id")) wh.add("a.run_id=(SELECT id FROM runs WHERE run_key=?)", *v);
  if (auto v = opt(q, "raised_by")) wh.add("a.raised_by=(SELECT id FROM runs WHERE run_key=?)", *v);
  const auto limit = int_param(q, "limit", 50, 1, 500), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  const std::string from = " FROM alerts a JOIN series s ON s.id=a.series_id JOIN benchmarks bm ON bm.id=s.benchmark_id";
  auto c = db_.reader();
  std::int64_t total = 0;
  {
    auto& st = c->q("SELECT COUNT(*)" + from + wh.sql);
    wh.bind(st);
    st.step();
    total = st.i64(0);
  }
  std::vector<std::int64_t> ids;
  {
    auto& st = c->q("SELECT a.id" + from + wh.sql + " ORDER BY a.id DESC LIMIT ? OFFSET ?");
    const int i = wh.bind(st);
    st.bind(i, limit).bind(i + 1, offset);
    while (st.step()) ids.push_back(st.i64(0));
  }
  AlertPage page{{}, total, limit, offset, std::nullopt};
  page.alerts = load_alerts(*c, ids);
  if (offset + limit < total) page.next_offset = offset + limit;
  return page;
}

IngestAnswer Queries::ingest_answer(std::int64_t run_pk, const std::vector<std::int64_t>& alert_ids) {
  auto c = db_.reader();
  IngestAnswer out;
  out.alerts = load_alerts(*c, alert_ids);
  out.run = load_run_summary(*c, run_pk);
  return out;
}

Alert Queries::alert(std::int64_t id) {
  auto c = db_.reader();
  return load_alert(*c, id);
}

}  // namespace shaderwatch
