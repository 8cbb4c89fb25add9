// Read-side queries the dashboard needs beyond the per-object ones: the overview's summary and the
// correctness matrix. Both reuse the per-object answers (a run as listed, the verdict) so the pages and the API
// say the same thing.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/driver_identity.h"
#include "queries/query_helpers.h"
#include "queries/run_counters.h"
#include "common/clock.h"
#include "common/iso8601.h"
#include "ingest/benchmark_name.h"
#include "queries/queries.h"
#include "queries/run_loader.h"

namespace shaderwatch {

namespace {

VerdictBrief verdict_brief(const Verdict& v) {
  VerdictBrief b{v.fail, v.correctness.size(), v.regressions.size(), v.slowdowns.size(), v.suspects.size(),
                 v.skipped.size(), v.coverage.line, {}, 0};
  for (const auto& f : v.correctness) b.failing.push_back(f.benchmark);
  for (const auto& r : v.regressions) b.failing.push_back(r.benchmark);
  for (const auto& s : v.slowdowns) b.failing.push_back(s.benchmark);
  b.failing_total = b.failing.size();
  b.failing.resize(std::min<std::size_t>(b.failing.size(), 10));
  return b;
}

// Each GPU's driver builds, oldest first.
std::map<std::int64_t, std::vector<DriverBuild>> driver_builds(sql::Conn& c) {
  std::map<std::int64_t, std::vector<DriverBuild>> drivers;
  auto& st = c.q("SELECT gpu_id, driver_name, driver_version, COUNT(*), MIN(started_at), MAX(started_at),"
                 " driver_info, driver_uuid FROM runs GROUP BY gpu_id, driver_name, driver_version, driver_info,"
                 " driver_uuid ORDER BY gpu_id, MIN(started_ms)");
  while (st.step())
    drivers[st.i64(0)].push_back({st.text(1), st.text(2), st.text(6), st.text(7),
                                  DriverIdentity{st.text(1), st.text(2), st.text(6), st.text(7)}.label(), st.i64(3),
                                  st.text(4), st.text(5)});
  return drivers;
}

// Each GPU with its runs, driver builds and open alerts, and the primary key of its latest run (0: none).
std::vector<std::pair<GpuOverview, std::int64_t>> gpu_overviews(sql::Conn& c) {
  auto drivers = driver_builds(c);
  std::map<std::int64_t, std::map<std::string, std::int64_t>> open_alerts;
  {
    auto& st = c.q("SELECT s.gpu_id, a.kind, COUNT(*) FROM alerts a JOIN series s ON s.id=a.series_id"
                   " WHERE a.state IN " + open_alert_states_sql() + " GROUP BY s.gpu_id, a.kind");
    while (st.step()) open_alerts[st.i64(0)][st.text(1)] = st.i64(2);
  }
  std::vector<std::pair<GpuOverview, std::int64_t>> gpus;
  auto& st = c.q("SELECT g.id, g.vendor_id, g.device_id, g.name, g.device_type, COUNT(r.id),"
                 " (SELECT r2.id FROM runs r2 WHERE r2.gpu_id=g.id ORDER BY r2.started_ms DESC, r2.id DESC"
                 " LIMIT 1) FROM gpus g LEFT JOIN runs r ON r.gpu_id=g.id GROUP BY g.id ORDER BY g.name, g.id");
  while (st.step()) {
    const auto id = st.i64(0);
    gpus.push_back({{{id, st.text(1), st.text(2), st.text(3), st.text(4)}, st.i64(5), std::move(drivers[id]),
                     std::move(open_alerts[id]), std::nullopt},
                    st.null(6) ? 0 : st.i64(6)});
  }
  return gpus;
}

}  // namespace

Overview Queries::summary(const Params& q) {
  allow_only(q, {"runs"});
  const auto n_runs = int_param(q, "runs", 20, 1, 200);
  Overview out;
  {
    auto c = db_.reader();
    for (auto& [gpu, last_pk] : gpu_overviews(*c)) {
      if (last_pk) gpu.last_run = RunWithVerdict{load_run_summary(*c, last_pk), {}};
      out.gpus.push_back(std::move(gpu));
    }
  }
  // verdict() and runs() take their own reader: the lease above is back in the pool by now. Each run judged once (a
  // GPU's last run is most often among the latest runs too). The first ask after a start judges ~20 runs, which one
  // after another took 190-450 ms at 20 million repetitions.
  std::vector<RunSummary> latest = runs({{"limit", std::to_string(n_runs)}}).runs;
  std::vector<std::string> keys;
  std::map<std::string, std::size_t> slot;
  const auto judge = [&](const std::string& run) {
    if (slot.emplace(run, keys.size()).second) keys.push_back(run);
  };
  for (const auto& g : out.gpus)
    if (g.last_run) judge(g.last_run->run.id);
  for (const RunSummary& run : latest) judge(run.id);
  // Those kept are taken one after another (asked at once, SQLite's readers met each other: 6 -> 17 ms on two
  // cores); those to judge, at once.
  std::vector<VerdictBrief> briefs(keys.size());
  std::vector<std::size_t> to_judge;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (auto kept = kept_verdict(keys[i])) briefs[i] = verdict_brief(*kept);
    else to_judge.push_back(i);
  }
  judges_.parallel_for(to_judge.size(),
                       [&](std::size_t j) { briefs[to_judge[j]] = verdict_brief(verdict(keys[to_judge[j]])); });
  for (auto& g : out.gpus)
    if (g.last_run) g.last_run->verdict = briefs[slot.at(g.last_run->run.id)];
  for (RunSummary& run : latest) {
    const std::size_t i = slot.at(run.id);
    out.latest_runs.push_back({std::move(run), briefs[i]});
  }
  return out;
}

Vocabulary Queries::vocabulary() {
  Vocabulary v;
  v.alert_states.assign(kAlertStates.begin(), kAlertStates.end());
  v.open_alert_states = kOpenAlertStates;
  for (auto k : detect::kAlertKinds) v.alert_kinds.push_back(detect::to_string(k));
  for (auto c : {detect::Cause::Driver, detect::Cause::Commit, detect::Cause::Both, detect::Cause::Machine,
                 detect::Cause::Neither})
    v.causes.push_back(detect::to_string(c));
  for (auto o : {RowStatus::Pass, RowStatus::Flake, RowStatus::Fail, RowStatus::Xfail, RowStatus::Xpass, RowStatus::Skip,
                 RowStatus::Unsupported})
    v.outcomes.emplace_back(contract::row_status_word(o));
  for (auto k : detect::kAlertKinds)
    v.alert_kind_tones[detect::to_string(k)] =
        k == detect::AlertKind::Improvement                                  ? "better"
        : k == detect::AlertKind::Ambiguous || k == detect::AlertKind::Noise ? "unclear"
                                                                            : "worse";
  for (auto k : detect::kAlertKinds)
    (k == detect::AlertKind::Noise ? v.spread_alert_kinds
     : k == detect::AlertKind::CorrectnessRegression || k == detect::AlertKind::CorrectnessFailure ? v.correctness_alert_kinds
                                                                                                   : v.level_alert_kinds)
        .push_back(detect::to_string(k));
  v.main_branch = opts_.main_branch;
  return v;
}

CorrectnessMatrix Queries::correctness(const Params& q) {
  allow_only(q, {"columns", "branch"});
  const auto n_columns = int_param(q, "columns", 12, 1, 50);
  const std::string branch = opt(q, "branch").value_or(opts_.main_branch);
  auto c = db_.reader();
  // One column per (GPU, driver): its latest run on the branch; the newest columns, shown by GPU.
  struct Column {
    std::int64_t pk, gpu_id;
    CorrectnessColumn head;
    std::vector<std::string> driver;  // name, version, info, uuid: the group's key beside the GPU
  };
  std::vector<Column> cols;
  {
    // The latest run of each (GPU, driver) on the branch: the first of its group, newest first.
    auto& st = c->q("SELECT r.id, r.run_key, r.started_at, r.driver_name, r.driver_version, g.id, g.vendor_id,"
                    " g.device_id, g.name, g.device_type, r.driver_info, r.driver_uuid FROM (SELECT id, run_key,"
                    " started_at, started_ms, driver_name, driver_version, driver_info, driver_uuid, gpu_id,"
                    " ROW_NUMBER() OVER (PARTITION BY gpu_id, driver_name, driver_version, driver_info, driver_uuid"
                    " ORDER BY started_ms DESC, id DESC) AS newest FROM runs WHERE branch=?) r"
                    " JOIN gpus g ON g.id=r.gpu_id WHERE r.newest=1 ORDER BY r.started_ms DESC, r.id DESC LIMIT ?");
    st.bind(1, branch).bind(2, n_columns);
    while (st.step())
      cols.push_back({st.i64(0), st.i64(5),
                      {st.text(1), st.text(2), st.text(3), st.text(4),
                       DriverIdentity{st.text(3), st.text(4), st.text(10), st.text(11)}.label(),
                       {st.i64(5), st.text(6), st.text(7), st.text(8), st.text(9)}, 0},
                      {st.text(3), st.text(4), st.text(10), st.text(11)}});
  }
  std::stable_sort(cols.begin(), cols.end(), [](const Column& a, const Column& b) {
    return std::tie(a.head.gpu.name, a.gpu_id, a.head.started_at) < std::tie(b.head.gpu.name, b.gpu_id, b.head.started_at);
  });
  // Each cell: the benchmark's latest result in the column's runs, so a partial run (one size, a filter)
  // does not blank the rest of its column. Older runs are read until every benchmark the GPU has is
  // filled, at most kColumnRuns of them.
  constexpr int kColumnRuns = 20;
  std::map<std::string, std::vector<std::optional<CorrectnessCell>>> rows;  // benchmark -> one cell per column
  auto& group_runs = c->q("SELECT r.id, r.run_key, (SELECT COUNT(*) FROM series s WHERE s.gpu_id=r.gpu_id) FROM runs r"
                          " WHERE r.branch=? AND r.gpu_id=? AND r.driver_name=? AND r.driver_version=? AND"
                          " r.driver_info=? AND r.driver_uuid=? ORDER BY r.started_ms DESC, r.id DESC LIMIT ?");
  for (std::size_t ci = 0; ci < cols.size(); ++ci) {
    std::vector<std::pair<std::int64_t, std::string>> runs;
    std::int64_t gpu_benchmarks = 0;
    group_runs.bind(1, branch).bind(2, cols[ci].gpu_id).bind(3, cols[ci].driver[0]).bind(4, cols[ci].driver[1])
        .bind(5, cols[ci].driver[2]).bind(6, cols[ci].driver[3]).bind(7, kColumnRuns);
    while (group_runs.step()) runs.emplace_back(group_runs.i64(0), group_runs.text(1)), gpu_benchmarks = group_runs.i64(2);
    group_runs.reset();
    std::int64_t filled = 0;
    for (const auto& [pk, key] : runs) {
      for (const auto& [name, k] : run_counters(*c, pk)) {
        auto& cells = rows[name];
        cells.resize(cols.size());
        if (cells[ci]) continue;
        cells[ci] = CorrectnessCell{k.outcome, k.message, key, std::nullopt};
        ++filled;
      }
      if (filled >= gpu_benchmarks) break;
    }
  }
  auto& sid = c->q("SELECT s.id FROM series s JOIN benchmarks bm ON bm.id=s.benchmark_id WHERE bm.name=? AND s.gpu_id=?");
  CorrectnessMatrix out{branch, {}, {}, {}};
  for (auto& [name, cells] : rows) {
    cells.resize(cols.size());
    for (std::size_t ci = 0; ci < cols.size(); ++ci) {
      if (!cells[ci]) continue;
      ++out.counts[std::string(contract::row_status_word(cells[ci]->outcome))];
      if (cells[ci]->run_id != cols[ci].head.run_id) ++cols[ci].head.benchmarks_from_older_runs;
      sid.bind(1, name).bind(2, cols[ci].gpu_id);
      if (sid.step()) cells[ci]->series_id = sid.i64(0);
      sid.reset();
    }
    out.rows.push_back({name, std::move(cells)});
  }
  for (auto& col : cols) out.columns.push_back(std::move(col.head));
  return out;
}

}  // namespace shaderwatch
