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
#include "render/api_json.h"  // until the overview is a value too
#include "storage/reps_blob.h"

using nlohmann::json;

namespace shaderwatch {

namespace {

// What the overview shows of a verdict: its outcome, the counts behind it, and the benchmarks to look at.
json verdict_brief(const Verdict& v) {
  std::vector<std::string> failing;
  for (const auto& f : v.correctness) failing.push_back(f.benchmark);
  for (const auto& r : v.regressions) failing.push_back(r.benchmark);
  for (const auto& s : v.slowdowns) failing.push_back(s.benchmark);
  const std::size_t shown = std::min<std::size_t>(failing.size(), 10);
  return {{"verdict", v.fail ? "fail" : "pass"},
          {"correctness", v.correctness.size()},
          {"regressions", v.regressions.size()},
          {"slowdowns", v.slowdowns.size()},
          {"history", v.coverage.line},
          {"suspects", v.suspects.size()},
          {"skipped", v.skipped.size()},
          {"failing", std::vector<std::string>(failing.begin(), failing.begin() + static_cast<std::ptrdiff_t>(shown))},
          {"failing_total", failing.size()}};
}

}  // namespace

json Queries::summary(const Params& q) {
  allow_only(q, {"runs"});
  const auto n_runs = int_param(q, "runs", 20, 1, 200);
  json gpus = json::array(), latest = json::array();
  std::vector<std::string> last_of_gpu;
  {
    auto c = db_.reader();
    std::map<std::int64_t, json> drivers, open_alerts;
    {
      // A driver is its build (driver_identity.hpp): runs that differ only in driver_info or UUID are two.
      auto& st = c->q("SELECT gpu_id, driver_name, driver_version, COUNT(*), MIN(started_at), MAX(started_at),"
                      " driver_info, driver_uuid FROM runs GROUP BY gpu_id, driver_name, driver_version, driver_info,"
                      " driver_uuid ORDER BY gpu_id, MIN(started_ms)");
      while (st.step())
        drivers[st.i64(0)].push_back(
            {{"driver_name", st.text(1)}, {"driver_version", st.text(2)}, {"driver_info", st.text(6)},
             {"driver_uuid", st.text(7)},
             {"driver", DriverIdentity{st.text(1), st.text(2), st.text(6), st.text(7)}.label()},
             {"runs", st.i64(3)}, {"first_seen", st.text(4)}, {"last_seen", st.text(5)}});
    }
    {
      auto& st = c->q("SELECT s.gpu_id, a.kind, COUNT(*) FROM alerts a JOIN series s ON s.id=a.series_id"
                      " WHERE a.state IN " + open_alert_states_sql() + " GROUP BY s.gpu_id, a.kind");
      while (st.step()) open_alerts[st.i64(0)][st.text(1)] = st.i64(2);
    }
    std::vector<std::int64_t> last_pk;
    {
      auto& st = c->q("SELECT g.id, g.vendor_id, g.device_id, g.name, g.device_type, COUNT(r.id),"
                      " (SELECT r2.id FROM runs r2 WHERE r2.gpu_id=g.id ORDER BY r2.started_ms DESC, r2.id DESC"
                      " LIMIT 1) FROM gpus g LEFT JOIN runs r ON r.gpu_id=g.id GROUP BY g.id ORDER BY g.name, g.id");
      while (st.step()) {
        const auto id = st.i64(0);
        gpus.push_back({{"gpu", gpu_obj(id, st.text(1), st.text(2), st.text(3), st.text(4))},
                        {"runs", st.i64(5)},
                        {"drivers", drivers.count(id) ? drivers[id] : json::array()},
                        {"open_alerts", open_alerts.count(id) ? open_alerts[id] : json::object()}});
        last_pk.push_back(st.null(6) ? 0 : st.i64(6));
      }
    }
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      gpus[i]["last_run"] = last_pk[i] ? json(load_run_summary(*c, last_pk[i])) : json(nullptr);
      if (last_pk[i]) last_of_gpu.push_back(gpus[i]["last_run"]["id"]);
      else last_of_gpu.emplace_back();
    }
  }
  // verdict() and runs() take their own reader: the lease above is back in the pool by now.
  for (std::size_t i = 0; i < gpus.size(); ++i)
    if (!last_of_gpu[i].empty()) gpus[i]["last_run"]["verdict"] = verdict_brief(verdict(last_of_gpu[i]));
  for (const RunSummary& run : runs({{"limit", std::to_string(n_runs)}}).runs) {
    json r = run;
    r["verdict"] = verdict_brief(verdict(run.id));
    latest.push_back(std::move(r));
  }
  return {{"gpus", gpus}, {"latest_runs", latest}};
}

json Queries::vocabulary() {
  json states = json::array(), kinds = json::array(), causes = json::array();
  for (const auto& s : kAlertStates) states.push_back(s);
  for (auto k : {detect::AlertKind::CorrectnessRegression, detect::AlertKind::CorrectnessFailure,
                 detect::AlertKind::Regression, detect::AlertKind::Ambiguous, detect::AlertKind::Improvement})
    kinds.push_back(detect::to_string(k));
  for (auto c : {detect::Cause::Driver, detect::Cause::Commit, detect::Cause::Both, detect::Cause::Machine,
                 detect::Cause::Neither})
    causes.push_back(detect::to_string(c));
  json outcomes = json::array();
  for (auto o : {RowStatus::Pass, RowStatus::Flake, RowStatus::Fail, RowStatus::Xfail, RowStatus::Xpass, RowStatus::Skip,
                 RowStatus::Unsupported})
    outcomes.push_back(outcome_name(o));
  // What the dashboard needs to know of the words, so it spells none by hand: the open states, the
  // correctness kinds (a wrong answer, no cause), the performance kinds drawn as before/after levels.
  json correctness_kinds = json::array(), level_kinds = json::array(), tones = json::object();
  for (auto k : detect::kAlertKinds)
    tones[detect::to_string(k)] = k == detect::AlertKind::Improvement ? "better" : k == detect::AlertKind::Ambiguous ? "unclear" : "worse";
  for (auto k : detect::kAlertKinds)
    (k == detect::AlertKind::CorrectnessRegression || k == detect::AlertKind::CorrectnessFailure ? correctness_kinds
                                                                                                  : level_kinds)
        .push_back(detect::to_string(k));
  return {{"alert_states", states},       {"open_alert_states", kOpenAlertStates},
          {"alert_kinds", kinds},         {"correctness_alert_kinds", correctness_kinds},
          {"level_alert_kinds", level_kinds}, {"alert_kind_tones", tones}, {"causes", causes},
          {"outcomes", outcomes},         {"main_branch", opts_.main_branch}};
}

json Queries::correctness(const Params& q) {
  allow_only(q, {"columns", "branch"});
  const auto n_columns = int_param(q, "columns", 12, 1, 50);
  const std::string branch = opt(q, "branch").value_or(opts_.main_branch);
  auto c = db_.reader();
  // One column per (GPU, driver): its latest run on the branch; the newest columns, shown by GPU.
  struct Column {
    std::int64_t pk, gpu_id;
    json head;
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
                      {{"run_id", st.text(1)}, {"started_at", st.text(2)}, {"driver_name", st.text(3)},
                       {"driver_version", st.text(4)},
                       {"driver", DriverIdentity{st.text(3), st.text(4), st.text(10), st.text(11)}.label()},
                       {"gpu", gpu_obj(st.i64(5), st.text(6), st.text(7), st.text(8), st.text(9))}},
                      {st.text(3), st.text(4), st.text(10), st.text(11)}});
  }
  std::stable_sort(cols.begin(), cols.end(), [](const Column& a, const Column& b) {
    return std::tie(a.head["gpu"]["name"], a.gpu_id, a.head["started_at"]) <
           std::tie(b.head["gpu"]["name"], b.gpu_id, b.head["started_at"]);
  });
  // Each cell: the benchmark's latest result in the column's runs, so a partial run (one size, a filter)
  // does not blank the rest of its column. Older runs are read until every benchmark the GPU has is
  // filled, at most kColumnRuns of them.
  constexpr int kColumnRuns = 20;
  std::map<std::string, std::vector<json>> rows;  // benchmark -> one cell per column
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
        cells.resize(cols.size(), nullptr);
        if (!cells[ci].is_null()) continue;
        cells[ci] = {{"outcome", outcome_name(k.outcome)}, {"message", k.message}, {"run_id", key}};
        ++filled;
      }
      if (filled >= gpu_benchmarks) break;
    }
    cols[ci].head["benchmarks_from_older_runs"] = 0;
  }
  auto& sid = c->q("SELECT s.id FROM series s JOIN benchmarks bm ON bm.id=s.benchmark_id WHERE bm.name=? AND s.gpu_id=?");
  json out_rows = json::array();
  std::map<std::string, std::int64_t> counts;
  for (auto& [name, cells] : rows) {
    cells.resize(cols.size(), nullptr);
    for (std::size_t ci = 0; ci < cols.size(); ++ci) {
      if (cells[ci].is_null()) continue;
      ++counts[cells[ci]["outcome"].get<std::string>()];
      if (cells[ci]["run_id"] != cols[ci].head["run_id"])
        cols[ci].head["benchmarks_from_older_runs"] = cols[ci].head["benchmarks_from_older_runs"].get<int>() + 1;
      sid.bind(1, name).bind(2, cols[ci].gpu_id);
      cells[ci]["series_id"] = sid.step() ? json(sid.i64(0)) : json(nullptr);
      sid.reset();
    }
    out_rows.push_back({{"benchmark", name}, {"cells", cells}});
  }
  json columns = json::array();
  for (auto& col : cols) columns.push_back(std::move(col.head));
  return {{"branch", branch}, {"columns", columns}, {"rows", out_rows}, {"counts", counts}};
}

}  // namespace shaderwatch
