#include "detection/verdict_evidence.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "common/alert_states.h"
#include "detection/change_attribution.h"
#include "storage/main_history.h"
#include "storage/run_points.h"

namespace shaderwatch {

namespace {

using Evidence = analysis::BenchmarkEvidence;
using BySeries = std::map<std::int64_t, Evidence*>;

// The run's benchmarks that reported no error, by series: those judged on their time.
BySeries timed(analysis::RunEvidence& evidence) {
  BySeries m;
  for (auto& b : evidence.benchmarks)
    if (!b.failed) m.emplace(b.series_id, &b);
  return m;
}

// Benchmarks that failed in this run: whether each passed in main's run before the bound, and its message.
void load_failures(sql::Conn& c, const JudgedRun& run, const LevelBound& bound, analysis::RunEvidence& evidence) {
  BySeries failed;
  for (auto& b : evidence.benchmarks)
    if (b.failed) failed.emplace(b.series_id, &b);
  if (failed.empty()) return;
  auto& st = c.q("SELECT p.series_id, p.error_message, (SELECT q.n_errors FROM points q WHERE q.series_id=p.series_id AND"
                 " (q.started_ms, q.run_id) < (?, ?) AND q.on_main=1 ORDER BY q.started_ms DESC, q.run_id DESC LIMIT 1)"
                 " FROM points p WHERE p.run_id=? AND p.n_errors>0");
  st.bind(1, bound.ms).bind(2, bound.pk).bind(3, run.pk);
  while (st.step()) {
    const auto it = failed.find(st.i64(0));
    if (it == failed.end()) continue;
    it->second->error_message = st.text(1);
    it->second->passed_before = !st.null(2) && st.i64(2) == 0;
  }
}

// Each timed series' latest performance change point before the bound (its started_ms): where its level starts.
std::map<std::int64_t, std::int64_t> level_starts(sql::Conn& c, std::int64_t run_pk, const LevelBound& bound) {
  std::map<std::int64_t, std::int64_t> m;
  auto& st = c.q("SELECT a.series_id, MAX(a.started_ms) FROM points p JOIN alerts a ON a.series_id=p.series_id"
                 " WHERE p.run_id=? AND p.n_errors=0 AND a.kind IN ('regression','improvement','ambiguous') AND"
                 " a.state!='invalid' AND (a.started_ms, a.run_id) < (?, ?) GROUP BY a.series_id");
  st.bind(1, run_pk).bind(2, bound.ms).bind(3, bound.pk);
  while (st.step()) m[st.i64(0)] = st.i64(1);
  return m;
}

// The newest main points of every series of the run, read from the database into what the process holds
// (storage/main_history.h): the points since the GPU's MainHistory::kDepth-th newest main run.
void hold_newest(sql::Conn& c, const JudgedRun& run, const EvidenceParams& p) {
  const auto generation = p.history->generation();
  if (!generation) return;
  const auto cut = main_run_started_ms(c, run.gpu_id, p.main_branch, MainHistory::kDepth - 1);
  std::map<std::int64_t, std::vector<MainPoint>> newest;
  auto& st = c.q("SELECT series_id, started_ms, run_id, value_ns, spread, spirv FROM points WHERE series_id IN"
                 " (SELECT series_id FROM points WHERE run_id=?) AND on_main=1 AND value_ns IS NOT NULL AND started_ms>=?"
                 " ORDER BY series_id, started_ms, run_id");
  st.bind(1, run.pk).bind(2, cut.value_or(INT64_MIN));
  while (st.step()) newest[st.i64(0)].push_back({st.i64(1), st.i64(2), st.f64(3), st.f64(4), st.text(5)});
  st.reset();
  p.history->hold(*generation, std::move(newest), !cut);  // no cut: the GPU's every main run was read
}

// latest_main_points from what the process holds (caught up by load_evidence), read first where it holds none: false
// where it cannot say.
template <class F>
bool latest_held_points(sql::Conn& c, const JudgedRun& run, const EvidenceParams& p, const LevelBound& upto,
                        bool inclusive, std::size_t limit, const BySeries& series, F& f) {
  const auto give = [&](const BySeries::value_type& s, const MainPoint& pt) { f(*s.second, pt); };
  if (p.history->visit_newest_before(series, upto.ms, upto.pk, inclusive, limit, give)) return true;
  hold_newest(c, run, p);
  return p.history->visit_newest_before(series, upto.ms, upto.pk, inclusive, limit, give);
}

// Calls f(benchmark, point) on each of the newest `limit` main points with a value of every timed series of the run
// before `upto` (or at it too, `inclusive`), newest first within a series: from what the process holds where it
// can, else two statements for the run: where the GPU's newest `limit` main runs start (the cut), then every
// series' points since it; a series that missed some of those runs (or failed in them) reads the rest from before
// the cut, one statement each.
template <class F>
void latest_main_points(sql::Conn& c, const JudgedRun& run, const EvidenceParams& p, const LevelBound& upto,
                        bool inclusive, std::size_t limit, const BySeries& series, F&& f) {
  if (limit == 0) return;
  if (p.history && latest_held_points(c, run, p, upto, inclusive, limit, series, f)) return;
  const auto point = [](const sql::Stmt& st) {
    return MainPoint{st.i64(2), st.i64(3), st.f64(1), st.f64(5), st.text(4)};
  };
  const std::string cmp = inclusive ? " <= " : " < ";
  std::int64_t cut = INT64_MIN;  // none: the GPU has fewer main runs than `limit`, so every point is read
  {
    auto& st = c.q("SELECT started_ms FROM runs WHERE gpu_id=? AND branch=? AND (started_ms, id)" + cmp +
                   "(?, ?) ORDER BY started_ms DESC, id DESC LIMIT 1 OFFSET ?");
    st.bind(1, run.gpu_id).bind(2, p.main_branch).bind(3, upto.ms).bind(4, upto.pk)
        .bind(5, static_cast<std::int64_t>(limit - 1));
    if (st.step()) cut = st.i64(0);
    st.reset();
  }
  std::map<std::int64_t, std::size_t> taken;  // points given to f, by series
  auto& st = c.q("SELECT h.series_id, h.value_ns, h.started_ms, h.run_id, h.spirv, h.spread FROM points h WHERE h.series_id IN"
                 " (SELECT series_id FROM points WHERE run_id=? AND n_errors=0) AND h.started_ms>=? AND"
                 " (h.started_ms, h.run_id)" + cmp + "(?, ?) AND h.on_main=1 AND h.value_ns IS NOT NULL"
                 " ORDER BY h.series_id DESC, h.started_ms DESC, h.run_id DESC");
  st.bind(1, run.pk).bind(2, cut).bind(3, upto.ms).bind(4, upto.pk);
  while (st.step()) {
    const auto it = series.find(st.i64(0));
    if (it == series.end()) continue;
    std::size_t& n = taken[it->first];
    if (n >= limit) continue;
    ++n;
    f(*it->second, point(st));
  }
  if (cut == INT64_MIN) return;
  for (const auto& [sid, b] : series) {
    const std::size_t n = taken[sid];
    if (n >= limit) continue;
    auto& older = c.q("SELECT series_id, value_ns, started_ms, run_id, spirv, spread FROM points WHERE series_id=? AND started_ms<? AND"
                      " on_main=1 AND value_ns IS NOT NULL ORDER BY started_ms DESC, run_id DESC LIMIT ?");
    older.bind(1, sid).bind(2, cut).bind(3, static_cast<std::int64_t>(limit - n));
    while (older.step()) f(*b, point(older));
  }
}

// The main runs before the bound, newest first: the level (since the latest performance change point before
// the bound, at most kLevelRuns), the history the gate looks for the GPU's lone swings in (across change
// points) and how long the series is (counted up to the most runs read).
void load_levels(sql::Conn& c, const JudgedRun& run, const LevelBound& bound, const EvidenceParams& p,
                 const BySeries& series, std::map<std::int64_t, std::vector<std::int64_t>>& level_run_ids) {
  const auto starts = level_starts(c, run.pk, bound);
  const std::size_t most = std::max({p.detect.noise_window, analysis::kLevelRuns, p.gate.swing_runs});
  // A series' points come one after another: its level's start and run ids are looked up once for them.
  const Evidence* current = nullptr;
  std::int64_t boundary_ms = INT64_MIN;
  std::vector<std::int64_t>* run_ids = nullptr;
  latest_main_points(c, run, p, bound, false, most, series, [&](Evidence& b, const MainPoint& pt) {
    if (&b != current) {
      current = &b;
      const auto start = starts.find(b.series_id);
      boundary_ms = start == starts.end() ? INT64_MIN : start->second;
      run_ids = &level_run_ids[b.series_id];
      b.swing_history.reserve(p.gate.swing_runs);
      b.swing_spirv.reserve(p.gate.swing_runs);
    }
    ++b.history;
    if (b.swing_history.size() < p.gate.swing_runs) {
      b.swing_history.push_back(pt.value);
      b.swing_spirv.push_back(pt.spirv);
    }
    if (pt.started_ms < boundary_ms || b.level_runs.size() >= analysis::kLevelRuns) return;
    b.level_runs.push_back(pt.value);
    run_ids->push_back(pt.run_id);
    if (b.level_runs.size() < p.detect.min_segment) b.level_spreads.push_back(pt.spread);
  });
  for (const auto& [id, b] : series) {
    std::reverse(b->swing_history.begin(), b->swing_history.end());
    std::reverse(b->swing_spirv.begin(), b->swing_spirv.end());
  }
}

// Each open regression of the run's timed series, in the order of their steps, and where each step is.
void load_open_alerts(sql::Conn& c, const JudgedRun& run, const BySeries& series,
                      std::vector<std::pair<Evidence*, std::pair<std::int64_t, std::int64_t>>>& steps) {
  auto& st = c.q("SELECT a.series_id, a.id, a.state, a.before_ns, a.after_ns, a.floor_pct, a.noise_pct, a.n_before,"
                 " a.started_ms, a.run_id, a.n_after, " + c.json_text("a.attribution", "gate") + " IS NOT NULL FROM points p JOIN alerts a ON a.series_id=p.series_id WHERE p.run_id=? AND"
                 " p.n_errors=0 AND a.kind='regression' AND a.state IN " + open_alert_states_sql() +
                 " AND (a.started_ms, a.run_id) <= (?, ?) ORDER BY a.series_id, a.started_ms, a.id");
  st.bind(1, run.pk).bind(2, run.started_ms).bind(3, run.pk);
  while (st.step()) {
    const auto it = series.find(st.i64(0));
    if (it == series.end()) continue;
    analysis::OpenRegression r{st.i64(1), st.text(2) == "acknowledged"};
    if (!st.null(3) && !st.null(4)) r.before = st.f64(3), r.after = st.f64(4);
    r.floor_rel = st.null(5) ? 0 : st.f64(5) / 100;
    r.noise_rel = st.null(6) ? 0 : st.f64(6) / 100;
    r.n_before = st.null(7) ? 0 : static_cast<std::size_t>(st.i64(7));
    r.n_after = st.null(10) ? 0 : static_cast<std::size_t>(st.i64(10));
    r.by_gate = st.i64(11) != 0;
    r.raised_here = st.i64(9) == run.pk;
    it->second->open.push_back(r);
    steps.push_back({it->second, {st.i64(8), st.i64(9)}});  // the alert's first run of the new level
  }
}

// The series' open regressions, each with the values since its step: whether the run carries them is the
// judge's to say (detect::presence). The values come from the newest main points up to the run, as the levels'
// do: a read per regression was a round trip each on PostgreSQL (about 3 ms a judgement at 20 of them).
void load_open_regressions(sql::Conn& c, const JudgedRun& run, const EvidenceParams& p, const BySeries& series) {
  std::vector<std::pair<Evidence*, std::pair<std::int64_t, std::int64_t>>> steps;
  load_open_alerts(c, run, series, steps);
  if (steps.empty()) return;
  BySeries stepped;
  for (const auto& [b, step] : steps) stepped.emplace(b->series_id, b);
  std::map<const Evidence*, std::vector<MainPoint>> newest;  // up to and with the run, newest first
  latest_main_points(c, run, p, {run.started_ms, run.pk}, true, analysis::kLevelRuns, stepped,
                     [&](const Evidence& b, const MainPoint& pt) { newest[&b].push_back(pt); });
  std::map<Evidence*, std::size_t> next;  // each benchmark's next open regression to fill
  for (const auto& [b, step] : steps) {
    auto& r = b->open[next[b]++];
    for (const MainPoint& pt : newest[b]) {
      if (earlier(pt, step.first, step.second)) break;
      r.since.push_back(pt.value);
    }
  }
}

// Whether each timed series ran as its baseline's runs did (BenchmarkEvidence::ran_as_before): at the newest run of
// its level and at the level's middle one (a kernel changed since then moves the baseline's median too: a slowdown
// the gate let through on its first run is not "as before" on its second), the same driver and runner, and its
// kernel's compiled row (or, where either run recorded none, its SPIR-V) the same.
void load_ran_as_before(sql::Conn& c, const JudgedRun& run, const BySeries& series,
                        const std::map<std::int64_t, std::vector<std::int64_t>>& level_run_ids, WhatRanCache* cache,
                        SeriesNames& names) {
  const auto what_ran = [&](std::int64_t pk) {
    return cache ? cache->get(c, pk) : std::make_shared<const RanBySeries>(read_what_ran(c, names, pk));
  };
  const RunInfo now_run = load_run(c, run.pk);
  const auto now = what_ran(run.pk);
  struct Then {
    bool same_machine = false;
    std::shared_ptr<const RanBySeries> ran = std::make_shared<const RanBySeries>();
  };
  std::map<std::int64_t, Then> runs;  // the level runs compared against, read once each
  const auto then = [&](std::int64_t pk) -> const Then& {
    auto it = runs.find(pk);
    if (it != runs.end()) return it->second;
    const RunInfo r = load_run(c, pk);
    Then t;
    t.same_machine = r.runner == now_run.runner && r.driver == now_run.driver;
    if (t.same_machine) t.ran = what_ran(pk);
    return runs.emplace(pk, std::move(t)).first->second;
  };
  for (const auto& [sid, bench] : series) {
    const auto ids = level_run_ids.find(sid);
    const auto y = now->find(sid);
    if (ids == level_run_ids.end() || ids->second.empty() || y == now->end()) continue;
    const Ran& r1 = y->second;
    bool same = true;
    for (const std::int64_t pk : {ids->second.front(), ids->second[(ids->second.size() - 1) / 2]}) {  // newest first
      const Then& t = then(pk);
      const auto x = t.ran->find(sid);
      if (!t.same_machine || x == t.ran->end()) {
        same = false;
        break;
      }
      const Ran& r0 = x->second;
      same = same && (r0.compiled && r1.compiled ? r0.compiled == r1.compiled : !r1.spirv.empty() && r0.spirv == r1.spirv);
    }
    bench->ran_as_before = same;
  }
}

}  // namespace

std::optional<std::int64_t> main_run_started_ms(sql::Conn& c, std::int64_t gpu_id, const std::string& main_branch,
                                                std::size_t n) {
  auto& st = c.q("SELECT started_ms FROM runs WHERE gpu_id=? AND branch=? ORDER BY started_ms DESC, id DESC LIMIT 1 OFFSET ?");
  st.bind(1, gpu_id).bind(2, main_branch).bind(3, static_cast<std::int64_t>(n));
  std::optional<std::int64_t> ms;
  if (st.step()) ms = st.i64(0);
  st.reset();
  return ms;
}

JudgedRun load_judged_run(sql::Conn& c, std::int64_t pk) {
  auto& st = c.q("SELECT r.started_ms, r.branch, r.merge_base, r.gpu_id, g.device_type, g.name FROM runs r"
                 " JOIN gpus g ON g.id=r.gpu_id WHERE r.id=?");
  st.bind(1, pk);
  st.step();
  JudgedRun run{pk, st.i64(0), st.i64(3), st.text(1), st.text(2), st.text(4) == "cpu", st.text(5)};
  st.reset();
  return run;
}

LevelBound level_bound(sql::Conn& c, const JudgedRun& run, const std::string& main_branch,
                       std::optional<VerdictBaseline>& baseline) {
  LevelBound bound{run.started_ms, run.pk};
  baseline.reset();
  if (run.branch == main_branch) return bound;
  baseline = VerdictBaseline{main_branch, run.merge_base.empty() ? std::nullopt : std::optional(run.merge_base),
                             std::nullopt};
  auto& mb = c.q("SELECT started_ms, run_key FROM runs WHERE gpu_id=? AND commit_id=? AND branch=?"
                 " ORDER BY started_ms DESC, id DESC LIMIT 1");
  mb.bind(1, run.gpu_id).bind(2, run.merge_base).bind(3, main_branch);
  if (!run.merge_base.empty() && mb.step()) {
    bound = {mb.i64(0) + 1, 0};  // that run and every main run before it
    baseline->run_id = mb.text(1);
  }
  mb.reset();
  return bound;
}

analysis::RunEvidence load_evidence(sql::Conn& c, const JudgedRun& run, const LevelBound& bound,
                                    const EvidenceParams& p) {
  analysis::RunEvidence evidence;
  evidence.on_main = run.branch == p.main_branch;
  evidence.timings_gated = !run.cpu_device || p.gate_cpu_timings;
  for (const auto& [name, point] : run_points(c, p.names, run.pk, false)) {
    Evidence& b = evidence.benchmarks.emplace_back();
    b.name = name;
    b.series_id = point.series_id;
    b.value = point.value;
    b.spirv = point.spirv;
    b.spread = point.spread;
    b.failed = point.errors > 0;
  }
  // Pointers into evidence.benchmarks from here on: it no longer grows.
  load_failures(c, run, bound, evidence);
  const BySeries series = timed(evidence);
  // What the process holds of the GPU's series, once per judgement, before any of it is read.
  if (p.history) p.history->catch_up(c, run.gpu_id, p.main_branch);
  if (evidence.on_main) load_open_regressions(c, run, p, series);
  std::map<std::int64_t, std::vector<std::int64_t>> level_run_ids;  // series -> its level's runs, newest first
  load_levels(c, run, bound, p, series, level_run_ids);
  load_ran_as_before(c, run, series, level_run_ids, p.what_ran, p.names);
  return evidence;
}

}  // namespace shaderwatch
