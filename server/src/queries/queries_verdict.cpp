// GET /api/v1/runs/{id}/verdict, the answer CI gates on: the run's evidence is loaded here, benchmark by
// benchmark, judged by analysis::judge and rendered with the alerts it names.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "detection/analysis.h"
#include "detection/alert_states.h"
#include "queries/queries.h"
#include "queries/query_helpers.h"
#include "queries/run_counters.h"
#include "storage/reps_blob.h"

using nlohmann::json;

namespace shaderwatch {

namespace {

struct JudgedRun {
  std::int64_t pk = 0, started_ms = 0, gpu_id = 0;
  std::string branch, merge_base;
  bool cpu_device = false;
};

JudgedRun load_run(sql::Conn& c, std::int64_t pk) {
  auto& st = c.q("SELECT r.started_ms, r.branch, r.merge_base, r.gpu_id, g.device_type FROM runs r"
                 " JOIN gpus g ON g.id=r.gpu_id WHERE r.id=?");
  st.bind(1, pk);
  st.step();
  JudgedRun run{pk, st.i64(0), st.i64(3), st.text(1), st.text(2), st.text(4) == "cpu"};
  st.reset();
  return run;
}

// Main points strictly before (ms, pk) form the level a run is judged against.
struct LevelBound {
  std::int64_t ms = 0, pk = 0;
};

// The main branch's level this run is judged against: for a main run, its own series up to it; for a
// run on another branch, main's runs up to its merge base (the latest main run on this GPU at that
// commit), or main's latest level where the merge base is unknown or was not run here. `baseline`: what
// the answer says about it (null for a main run).
LevelBound level_bound(sql::Conn& c, const JudgedRun& run, const std::string& main_branch, json& baseline) {
  LevelBound bound{run.started_ms, run.pk};
  baseline = nullptr;
  if (run.branch == main_branch) return bound;
  baseline = {{"branch", main_branch}, {"merge_base", run.merge_base.empty() ? json(nullptr) : json(run.merge_base)},
              {"run_id", nullptr}};
  auto& mb = c.q("SELECT started_ms, run_key FROM runs WHERE gpu_id=? AND commit_id=? AND branch=?"
                 " ORDER BY started_ms DESC, id DESC LIMIT 1");
  mb.bind(1, run.gpu_id).bind(2, run.merge_base).bind(3, main_branch);
  if (!run.merge_base.empty() && mb.step()) {
    bound = {mb.i64(0) + 1, 0};  // that run and every main run before it
    baseline["run_id"] = mb.text(1);
  }
  mb.reset();
  return bound;
}

// A benchmark that failed in this run: whether it passed in main's run before the bound, and its message.
void load_failure(sql::Conn& c, const JudgedRun& run, const LevelBound& bound, analysis::BenchmarkEvidence& b) {
  b.failed = true;
  auto& st = c.q("SELECT n_errors FROM points WHERE series_id=? AND (started_ms, run_id) < (?, ?) AND on_main=1"
                 " ORDER BY started_ms DESC, run_id DESC LIMIT 1");
  st.bind(1, b.series_id).bind(2, bound.ms).bind(3, bound.pk);
  b.passed_before = st.step() && st.i64(0) == 0;
  auto& em = c.q("SELECT error_message FROM points WHERE series_id=? AND run_id=?");
  em.bind(1, b.series_id).bind(2, run.pk);
  if (em.step()) b.error_message = em.text(0);
}

// A main run's recent values and the series' open regressions, each with the values since its step: whether
// they are still present is the judge's to say.
void load_open_regressions(sql::Conn& c, const JudgedRun& run, const detect::Params& detect,
                           analysis::BenchmarkEvidence& b) {
  auto& rs = c.q("SELECT value_ns FROM points WHERE series_id=? AND (started_ms, run_id) <= (?, ?) AND on_main=1"
                 " AND value_ns IS NOT NULL ORDER BY started_ms DESC, run_id DESC LIMIT ?");
  rs.bind(1, b.series_id).bind(2, run.started_ms).bind(3, run.pk).bind(4, static_cast<std::int64_t>(detect.present_points));
  while (rs.step()) b.recent.push_back(rs.f64(0));
  auto& st = c.q("SELECT id, state, before_ns, after_ns, floor_pct, noise_pct, n_before, started_ms, run_id FROM alerts"
                 " WHERE series_id=? AND kind='regression' AND state IN " + open_alert_states_sql() +
                 " AND (started_ms, run_id) <= (?, ?)");
  st.bind(1, b.series_id).bind(2, run.started_ms).bind(3, run.pk);
  std::vector<std::pair<std::int64_t, std::int64_t>> steps;  // each alert's first run of the new level
  while (st.step()) {
    steps.emplace_back(st.i64(7), st.i64(8));
    analysis::OpenRegression r{st.i64(0), st.text(1) == "acknowledged"};
    if (!st.null(2) && !st.null(3)) r.before = st.f64(2), r.after = st.f64(3);
    r.floor_rel = st.null(4) ? 0 : st.f64(4) / 100;
    r.noise_rel = st.null(5) ? 0 : st.f64(5) / 100;
    r.n_before = st.null(6) ? 0 : static_cast<std::size_t>(st.i64(6));
    b.open.push_back(r);
  }
  st.reset();
  for (std::size_t i = 0; i < b.open.size(); ++i) {
    auto& since = c.q("SELECT value_ns FROM points WHERE series_id=? AND (started_ms, run_id) >= (?, ?) AND"
                      " (started_ms, run_id) <= (?, ?) AND on_main=1 AND value_ns IS NOT NULL"
                      " ORDER BY started_ms DESC, run_id DESC LIMIT ?");
    since.bind(1, b.series_id).bind(2, steps[i].first).bind(3, steps[i].second).bind(4, run.started_ms).bind(5, run.pk)
        .bind(6, static_cast<std::int64_t>(analysis::kLevelRuns));
    while (since.step()) b.open[i].since.push_back(since.f64(0));
  }
}

// The main runs before the bound, newest first: the level (since the latest performance change point before
// the bound, at most kLevelRuns), the history the gate looks for the GPU's lone swings in (across change
// points) and how long the series is (counted up to the most runs read).
void load_level(sql::Conn& c, const LevelBound& bound, const detect::Params& detect, const analysis::GateParams& gate,
                analysis::BenchmarkEvidence& b) {
  std::int64_t boundary_ms = INT64_MIN;
  {
    auto& st = c.q("SELECT started_ms FROM alerts WHERE series_id=? AND kind IN"
                   " ('regression','improvement','ambiguous') AND state!='invalid' AND"
                   " (started_ms, run_id) < (?, ?) ORDER BY started_ms DESC, run_id DESC LIMIT 1");
    st.bind(1, b.series_id).bind(2, bound.ms).bind(3, bound.pk);
    if (st.step()) boundary_ms = st.i64(0);
  }
  auto& bs = c.q("SELECT value_ns, reps, started_ms FROM points WHERE series_id=? AND (started_ms, run_id) < (?, ?)"
                 " AND on_main=1 AND value_ns IS NOT NULL ORDER BY started_ms DESC, run_id DESC LIMIT ?");
  bs.bind(1, b.series_id).bind(2, bound.ms).bind(3, bound.pk)
      .bind(4, static_cast<std::int64_t>(std::max({detect.noise_window, analysis::kLevelRuns, gate.swing_runs})));
  while (bs.step()) {
    ++b.history;
    const double value = bs.f64(0);
    if (b.swing_history.size() < gate.swing_runs) b.swing_history.push_back(value);
    if (bs.i64(2) < boundary_ms || b.level_runs.size() >= analysis::kLevelRuns) continue;
    b.level_runs.push_back(value);
    if (b.level_runs.size() < detect.min_segment) b.level_reps.push_back(unpack_reps(bs.blob(1)));
  }
  bs.reset();
  std::reverse(b.swing_history.begin(), b.swing_history.end());
}

// Kernels the device could not run or an expectations entry skipped: neither a pass nor a failure,
// listed so nobody mistakes them for either.
json skipped_kernels(sql::Conn& c, std::int64_t pk) {
  json skipped = json::array();
  const auto word = [](RowStatus s) { return std::string(contract::row_status_word(s)); };
  auto& st = c.q("SELECT bm.name, r.status, MIN(r.error_message) FROM results r JOIN benchmarks bm ON"
                 " bm.id=r.benchmark_id WHERE r.run_id=? AND r.status IN ('" + word(RowStatus::Unsupported) + "','" +
                 word(RowStatus::Skip) + "') GROUP BY bm.name, r.status ORDER BY bm.name");
  st.bind(1, pk);
  while (st.step()) {
    const std::string message = st.text(2);
    const bool unsupported = status_of(st.text(1)) == RowStatus::Unsupported;
    const std::string_view prefix = unsupported && message.starts_with(contract::kUnsupportedPrefix) ? contract::kUnsupportedPrefix : "";
    skipped.push_back({{"benchmark", st.text(0)}, {"reason", message.substr(prefix.size())}});
  }
  return skipped;
}

json coverage_json(const analysis::RunVerdict& v, bool timings_gated, const detect::Params& detect,
                   const analysis::GateParams& gate) {
  const auto& cov = v.coverage;
  return {{"first_runs", cov.first_runs}, {"previous_runs", cov.previous_runs}, {"level", cov.level},
          {"change_points", cov.change_points}, {"not_timed", cov.not_timed},
          {"timings_gated", timings_gated}, {"history_min", cov.history_min},
          {"history_max", cov.history_max}, {"swing_pct", 100 * std::expm1(cov.swing)},
          {"series_runs", cov.series_runs}, {"single_run_gate", cov.gated},
          {"line", analysis::coverage_line(cov, detect, gate)}};
}

}  // namespace

json Queries::verdict(const std::string& key) {
  auto c = db_.reader();
  const JudgedRun run = load_run(*c, run_pk(*c, key, "run_id"));
  json baseline;
  const LevelBound bound = level_bound(*c, run, opts_.main_branch, baseline);
  // The evidence, loaded; the judgement is analysis::judge's.
  analysis::RunEvidence evidence;
  evidence.on_main = run.branch == opts_.main_branch;
  evidence.timings_gated = !run.cpu_device || opts_.gate_cpu_timings;
  for (const auto& [name, p] : run_points(*c, run.pk)) {
    analysis::BenchmarkEvidence& b = evidence.benchmarks.emplace_back();
    b.name = name;
    b.series_id = p.series_id;
    b.value = p.value;
    b.reps = p.reps;
    if (p.errors > 0) {
      load_failure(*c, run, bound, b);
      continue;
    }
    if (evidence.on_main) load_open_regressions(*c, run, opts_.detect, b);
    load_level(*c, bound, opts_.detect, opts_.gate, b);
  }
  const analysis::RunVerdict v = analysis::judge(evidence, opts_.detect, opts_.gate);

  json correctness = json::array(), suspects = json::array(), slowdowns = json::array();
  for (const auto& f : v.correctness)
    correctness.push_back({{"benchmark", f.benchmark->name}, {"series_id", f.benchmark->series_id},
                           {"kind", detect::to_string(f.kind)}, {"error_message", f.benchmark->error_message}});
  const auto alerts = [&](const std::vector<std::int64_t>& ids) {
    json out = json::array();
    for (const auto id : ids) out.push_back(alert_json(*c, id));
    return out;
  };
  for (const auto& f : v.suspects)
    suspects.push_back({{"benchmark", f.benchmark->name}, {"series_id", f.benchmark->series_id},
                        {"level_ns", f.suspect.level}, {"value_ns", f.benchmark->value},
                        {"delta_pct", 100 * f.suspect.delta}, {"floor_pct", 100 * f.suspect.floor}, {"z", f.suspect.z}});
  for (const auto& f : v.slowdowns)
    slowdowns.push_back({{"benchmark", f.benchmark->name}, {"series_id", f.benchmark->series_id},
                         {"against", analysis::to_string(f.slowdown.against)}, {"baseline_runs", f.slowdown.runs},
                         {"baseline_ns", f.slowdown.baseline}, {"value_ns", f.benchmark->value},
                         {"delta_pct", 100 * f.slowdown.delta}, {"floor_pct", 100 * f.slowdown.floor},
                         {"noise_pct", 100 * f.slowdown.noise}});
  return {{"run_id", key}, {"branch", run.branch}, {"baseline", baseline}, {"verdict", v.fail ? "fail" : "pass"},
          {"correctness", correctness}, {"regressions", alerts(v.regressions)}, {"slowdowns", slowdowns},
          {"acknowledged_regressions", alerts(v.acknowledged)}, {"unconfirmed_regressions", alerts(v.unconfirmed)},
          {"suspects", suspects}, {"skipped", skipped_kernels(*c, run.pk)},
          {"coverage", coverage_json(v, evidence.timings_gated, opts_.detect, opts_.gate)}};
}

}  // namespace shaderwatch
