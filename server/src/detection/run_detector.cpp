#include "detection/run_detector.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <future>
#include <iostream>
#include <optional>
#include <unordered_map>


#include "common/clock.h"
#include "common/worker_pool.h"
#include "common/iso8601.h"
#include "detection/alert_lifecycle.h"
#include "detection/change_attribution.h"
#include "detection/gpu_noise.h"
#include "detection/noise_change.h"
#include "common/driver_identity.h"
#include "detection/analysis.h"
#include "detection/verdict_evidence.h"


namespace shaderwatch {

namespace {

// The noise alert's numbers in the alert's columns: the levels either side (medians), their change, the noise
// after (noise_pct) and the split's score with its normal tail.
// `pts`: the window's points (each with its `value`, ns).
template <class Points>
detect::ChangePoint as_change_point(const detect::NoiseChange& nc, const Points& pts) {
  std::vector<double> before, after;
  for (std::size_t i = 0; i < pts.size(); ++i) (i < nc.index ? before : after).push_back(pts[i].value);
  detect::ChangePoint cp;
  cp.index = nc.index;
  cp.n_before = nc.n_before;
  cp.n_after = nc.n_after;
  cp.before = stats::median(before);
  cp.after = stats::median(after);
  cp.delta_rel = cp.before > 0 ? cp.after / cp.before - 1 : 0;
  cp.noise_rel = nc.after_rel;
  cp.score = nc.score;
  cp.p_value = 0.5 * std::erfc(nc.score / std::sqrt(2.0));
  return cp;
}

}  // namespace

RunDetector::Window& RunDetector::window_for(std::int64_t sid) {
  if (auto it = windows_.find(sid); it != windows_.end()) return *it->second;
  if (windows_.size() > kMostWindows) windows_.clear();  // bound memory; reloads are cheap
  auto win = std::make_unique<Window>();
  auto& st = db_.detector().q("SELECT started_ms, run_id, value_ns FROM points WHERE series_id=? AND on_main=1"
                        " AND value_ns IS NOT NULL ORDER BY started_ms DESC, run_id DESC LIMIT ?");
  st.bind(1, sid).bind(2, static_cast<std::int64_t>(std::max(opts_.detect.window, opts_.detect.noise_window)));
  while (st.step())
    win->pts.push_back({st.i64(0), st.i64(1), st.f64(2)});
  std::reverse(win->pts.begin(), win->pts.end());
  return *windows_.emplace(sid, std::move(win)).first->second;
}

// Another run may have been analysed in between and loaded this point already: each point is taken in once.
void RunDetector::take_into_window(std::int64_t sid, Window::Pt pt) {
  const auto wit = windows_.find(sid);
  if (wit == windows_.end()) return;  // loaded from the database when first needed
  auto& pts = wit->second->pts;
  if (std::any_of(pts.begin(), pts.end(), [&](const auto& q) { return q.run_id == pt.run_id; })) return;
  const auto pos = std::upper_bound(pts.begin(), pts.end(), pt, [](const auto& l, const auto& r) {
    return std::tie(l.started_ms, l.run_id) < std::tie(r.started_ms, r.run_id);
  });
  pts.insert(pos, std::move(pt));
  if (pts.size() > std::max(opts_.detect.window, opts_.detect.noise_window)) pts.erase(pts.begin());
}

// The windows of a run's series not cached yet, in one statement: the points since the GPU's
// (1.25 x window)th newest main run, of which each series keeps its newest `window`. A series too sparse
// to fill its window there (it skipped runs) is read on its own. Measured on PostgreSQL at 300,000
// results: detection 25-28 ms per run, against 28-32 ms reading each window on its own.
void RunDetector::load_windows(std::int64_t run_pk, std::int64_t gpu_id, const std::vector<std::int64_t>& series_ids) {
  std::vector<std::int64_t> missing;
  for (const auto sid : series_ids)
    if (!windows_.count(sid)) missing.push_back(sid);
  if (missing.size() < 4) return;  // window_for reads them one by one
  if (windows_.size() > kMostWindows) windows_.clear();  // bound memory; reloads are cheap
  auto& w = db_.detector();
  const auto n = std::max(opts_.detect.window, opts_.detect.noise_window);
  const auto cutoff = main_run_started_ms(w, gpu_id, opts_.main_branch, n + n / 4 - 1);
  std::unordered_map<std::int64_t, std::unique_ptr<Window>> loaded;
  {
    auto& st = w.q("SELECT series_id, started_ms, run_id, value_ns FROM points WHERE series_id IN"
                   " (SELECT series_id FROM points WHERE run_id=? AND on_main=1) AND on_main=1 AND value_ns IS NOT NULL"
                   " AND started_ms>=? ORDER BY series_id, started_ms, run_id");
    st.bind(1, run_pk).bind(2, cutoff.value_or(INT64_MIN));
    while (st.step()) {
      auto& win = loaded[st.i64(0)];
      if (!win) win = std::make_unique<Window>();
      win->pts.push_back({st.i64(1), st.i64(2), st.f64(3)});
    }
    st.reset();
  }
  for (const auto sid : missing) {
    auto it = loaded.find(sid);
    if (it == loaded.end() || (cutoff && it->second->pts.size() < n)) continue;  // window_for reads it
    auto& pts = it->second->pts;
    if (pts.size() > n) pts.erase(pts.begin(), pts.end() - static_cast<std::ptrdiff_t>(n));
    windows_.emplace(sid, std::move(it->second));
  }
}

// An untriaged regression whose series is back on its old level is closed by the evidence (see
// lifecycle::regressions_gone): it would otherwise fail every later verdict until someone triaged it.
std::size_t RunDetector::close_regressions_gone(const std::vector<lifecycle::OpenRegression>& open, const Window& win) {
  if (open.empty()) return 0;
  std::size_t writes = 0;
  std::vector<lifecycle::RecentRun> recent;
  for (const auto& p : win.pts) recent.push_back({p.started_ms, p.value, p.run_id});
  for (const auto& c : lifecycle::regressions_gone(open, recent, opts_.detect)) {
    // The run it came back at, named: the revert (or the change that undid it) is linked to the regression.
    const std::string note = c.back_since_run ? c.note + "; back since run " + load_run(db_.detector(), c.back_since_run).key : c.note;
    const auto l = db_.detector_write_lock();
    db_.detector().q("UPDATE alerts SET state='fixed', state_by='evidence', note=?, updated_at=? WHERE id=? AND state='new'")
        .bind(1, note).bind(2, format_iso8601_ms(now_ms())).bind(3, c.alert_id).run();
    ++writes;
  }
  return writes;
}

namespace {

// What detection needs of every series a run touched, read in three statements rather than three per
// series (each a round trip on PostgreSQL).
struct RunEvidence {
  std::unordered_map<std::int64_t, std::int64_t> errors;  // series -> the run's failed repetitions
  // series -> correctness regressions raised at this run's commit on other GPUs, by the series' benchmark:
  // {alert, its series, its previous run, its run}.
  std::unordered_map<std::int64_t, std::vector<std::array<std::int64_t, 4>>> stale;
  std::unordered_map<std::int64_t, std::vector<lifecycle::OpenRegression>> open;  // series -> untriaged regressions
};

RunEvidence load_evidence(sql::Conn& c, const RunInfo& run) {
  RunEvidence ev;
  {
    auto& st = c.q("SELECT series_id, n_errors FROM points WHERE run_id=? AND on_main=1");
    st.bind(1, run.id);
    while (st.step()) ev.errors[st.i64(0)] = st.i64(1);
  }
  {
    auto& st = c.q("SELECT t.series_id, a.id, a.series_id, a.prev_run_id, a.run_id FROM points t"
                   " JOIN series ts ON ts.id=t.series_id JOIN series s ON s.benchmark_id=ts.benchmark_id AND s.id!=ts.id"
                   " JOIN alerts a ON a.series_id=s.id JOIN runs r ON r.id=a.run_id WHERE t.run_id=? AND t.on_main=1"
                   " AND a.kind='correctness_regression' AND a.state='new' AND r.commit_id=? AND a.prev_run_id IS NOT NULL"
                   " ORDER BY t.series_id, a.id");
    st.bind(1, run.id).bind(2, run.commit);
    while (st.step()) ev.stale[st.i64(0)].push_back({st.i64(1), st.i64(2), st.i64(3), st.i64(4)});
  }
  {
    auto& st = c.q("SELECT a.series_id, a.id, a.started_ms, a.before_ns, a.after_ns, a.floor_pct, a.noise_pct, a.n_after"
                   " FROM alerts a"
                   " JOIN points t ON t.series_id=a.series_id WHERE t.run_id=? AND t.on_main=1 AND a.kind='regression'"
                   " AND a.state='new' AND a.before_ns IS NOT NULL ORDER BY a.series_id, a.id");
    st.bind(1, run.id);
    while (st.step())
      ev.open[st.i64(0)].push_back({st.i64(1), st.i64(2),
                                    {st.f64(3), st.f64(4), st.f64(5) / 100, st.null(6) ? 0 : st.f64(6) / 100,
                                     st.null(7) ? 0 : static_cast<std::size_t>(st.i64(7))}});
  }
  c.reset_all();
  return ev;
}

// Waits for a task on every way out of the frame it reads.
template <class T>
struct JoinedOnExit {
  std::future<T>& task;
  ~JoinedOnExit() {
    if (task.valid()) task.wait();
  }
};

// What a series' window shows before any alert is looked at: pure, so a run's series are analysed in parallel,
// then written one by one in their order.
struct WindowAnalysis {
  bool analysed = false;  // false: the window is too short to judge
  std::optional<detect::NoiseChange> noise;
  std::vector<detect::ChangePoint> change_points;
};

}  // namespace

// One run's detection: the alerts it raises or moves, series by series, in the order they are written.
struct RunDetector::Pass {
  RunDetector& self;
  sql::Conn& w;
  const RunInfo run;
  RunEvidence evidence;
  std::vector<std::int64_t> raised;
  std::unordered_map<std::int64_t, double> gpu_noise;  // the GPU's noise factor per run (gpu_noise.h)
  std::size_t alert_writes = 0;  // statements that wrote alerts (the gate judged beside them holds only where none)

  const detect::Params& params() const { return self.opts_.detect; }

  // The window's levels and noise, with the GPU's noise factor at each of its runs (1 where not known).
  static WindowAnalysis analyse(const Window& win, const detect::Params& P,
                                const std::unordered_map<std::int64_t, double>& gpu_noise) {
    WindowAnalysis found;
    if (win.pts.size() < 2 * P.min_segment) return found;
    std::vector<double> logs, factors;
    logs.reserve(win.pts.size());
    for (const auto& p : win.pts) logs.push_back(p.log_value);
    if (!gpu_noise.empty())
      for (const auto& p : win.pts) {
        const auto it = gpu_noise.find(p.run_id);
        factors.push_back(it == gpu_noise.end() ? 1.0 : it->second);
      }
    const detect::KeptRuns kept = detect::kept_runs_of_logs(logs, P, factors);
    found.analysed = true;
    found.noise = detect::noise_change(kept, P);
    found.change_points = detect::detect(kept, P);
    return found;
  }

  // The window index of run `run_id`, where the window holds it.
  static std::optional<std::size_t> index_in(const Window& win, std::int64_t run_id) {
    const auto it = std::find_if(win.pts.begin(), win.pts.end(), [&](const auto& p) { return p.run_id == run_id; });
    if (it == win.pts.end()) return std::nullopt;
    return static_cast<std::size_t>(it - win.pts.begin());
  }
  // The runs either side of a boundary at window index `i`: {last of the old level, first of the new}.
  std::pair<RunInfo, RunInfo> boundary(const Window& win, std::size_t i) {
    return {load_run(w, win.pts[i - 1].run_id), load_run(w, win.pts[i].run_id)};
  }

  void insert_alert(std::int64_t sid, const RunInfo& b, const RunInfo* a, detect::AlertKind kind,
                    const detect::ChangePoint* cp, const AlertAttribution& attribution) {
    auto& ins = w.q(
        "INSERT INTO alerts(series_id, run_id, prev_run_id, started_ms, kind, severity, state,"
        " before_ns, after_ns, delta_pct, noise_pct, floor_pct, score, p_value, n_before, n_after,"
        " cause, attribution, raised_by, created_at, updated_at) VALUES"
        "(?,?,?,?,?,?,'new',?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING RETURNING id");
    ins.bind(1, sid).bind(2, b.id);
    if (a) ins.bind(3, a->id); else ins.bind_null(3);
    ins.bind(4, b.started_ms).bind(5, std::string(detect::to_string(kind))).bind(6, detect::severity(kind));
    if (cp) {
      ins.bind(7, cp->before).bind(8, cp->after).bind(9, 100 * cp->delta_rel)
          .bind(10, 100 * cp->noise_rel).bind(11, 100 * cp->floor_rel).bind(12, cp->score)
          .bind(13, cp->p_value).bind(14, static_cast<std::int64_t>(cp->n_before))
          .bind(15, static_cast<std::int64_t>(cp->n_after));
    }
    const std::string now = format_iso8601_ms(now_ms());
    ins.bind(16, attribution.cause).bind(17, stored_text(attribution))
        .bind(18, run.id).bind(19, now).bind(20, now);
    const auto l = self.db_.detector_write_lock();
    ++alert_writes;
    const bool inserted = ins.step();
    const std::int64_t id = inserted ? ins.i64(0) : 0;
    ins.reset();
    if (inserted) raised.push_back(id);
  }

  // The series' newest main point before this run: its run and whether it failed (none: the series' first run).
  struct PreviousPoint {
    std::int64_t run_id = 0;
    bool failed = false;
  };
  std::optional<PreviousPoint> previous_main_point(std::int64_t sid) {
    auto& prev = w.q("SELECT n_errors, run_id FROM points WHERE series_id=? AND on_main=1 AND"
                     " (started_ms, run_id) < (?, ?) ORDER BY started_ms DESC, run_id DESC LIMIT 1");
    prev.bind(1, sid).bind(2, run.started_ms).bind(3, run.id);
    std::optional<PreviousPoint> p;
    if (prev.step()) p = PreviousPoint{prev.i64(1), prev.i64(0) > 0};
    prev.reset();
    return p;
  }

  // Correctness: an error now is a failure on this GPU and driver; after a pass, a regression.
  void correctness(std::int64_t sid) {
    if (const auto it = evidence.errors.find(sid); it == evidence.errors.end() || it->second <= 0) return;
    const auto prev = previous_main_point(sid);
    const auto kind = lifecycle::correctness_alert(true, prev ? std::optional<bool>(prev->failed) : std::nullopt);
    if (kind == detect::AlertKind::CorrectnessFailure) {
      insert_alert(sid, run, nullptr, *kind, nullptr,
                   AlertAttribution{.cause = "neither", .summary = "fails on its first run on this GPU"});
    } else if (kind == detect::AlertKind::CorrectnessRegression) {
      const RunInfo a = load_run(w, prev->run_id);
      insert_alert(sid, run, &a, *kind, nullptr, attribute_change(w, sid, a, run, 1.0, ChangeOf::Correctness, params()));
    }
  }

  // This run is sibling evidence for correctness alerts raised at its commit on other GPUs (raised
  // before this GPU had posted it): their attribution is weighed again now.
  void reweigh_siblings(std::int64_t sid) {
    const auto stale = evidence.stale.find(sid);
    if (stale == evidence.stale.end()) return;
    for (const auto& [aid, asid, prev, at] : stale->second) {
      const AlertAttribution attribution =
          attribute_change(w, asid, load_run(w, prev), load_run(w, at), 1.0, ChangeOf::Correctness, params());
      const auto l = self.db_.detector_write_lock();
      ++alert_writes;
      w.q("UPDATE alerts SET cause=?, attribution=?, updated_at=? WHERE id=? AND state='new'")
          .bind(1, attribution.cause).bind(2, stored_text(attribution))
          .bind(3, format_iso8601_ms(now_ms())).bind(4, aid).run();
    }
  }

  // Existing performance alerts of a series in its window, by the window index of their boundary.
  std::vector<lifecycle::ExistingAlert> existing_alerts(std::int64_t sid, const Window& win) {
    std::vector<lifecycle::ExistingAlert> existing;
    auto& st = w.q("SELECT id, run_id, kind, state, " + w.json_text("attribution", "trend") + " IS NOT NULL, delta_pct,"
                   " before_ns, after_ns, floor_pct FROM alerts WHERE series_id=? AND kind IN ('regression','improvement','ambiguous') AND started_ms>=?");
    st.bind(1, sid).bind(2, win.pts.front().started_ms);
    while (st.step()) {
      const auto at = index_in(win, st.i64(1));
      if (!at) continue;
      const auto kind = detect::parse_alert_kind(st.text(2)).value_or(detect::AlertKind::Ambiguous);
      const std::string state = st.text(3);
      existing.push_back({st.i64(0), *at, kind, state == "new",
                          st.i64(4) != 0, state == "invalid", st.f64(5) > 0, st.null(6) ? 0 : st.f64(6),
                          st.null(7) ? 0 : st.f64(7), st.null(8) ? 0 : st.f64(8) / 100});
    }
    return existing;
  }

  // An untriaged alert moved onto a new boundary (or kind). Moving onto a boundary where the same kind of
  // alert already stands would duplicate it: left as is.
  void move_alert(std::int64_t alert_id, const RunInfo& b, const RunInfo& a, detect::AlertKind kind,
                  const detect::ChangePoint& cp, const AlertAttribution& attribution) {
    const auto l = self.db_.detector_write_lock();
    ++alert_writes;
    auto& up = w.q("UPDATE alerts SET run_id=?, prev_run_id=?, started_ms=?, kind=?, severity=?,"
        " before_ns=?, after_ns=?, delta_pct=?, noise_pct=?, floor_pct=?, score=?, p_value=?,"
        " n_before=?, n_after=?, cause=?, attribution=?, updated_at=? WHERE id=? AND state='new'"
        " AND NOT EXISTS(SELECT 1 FROM alerts x WHERE x.series_id=alerts.series_id AND x.run_id=? AND x.kind=?"
        " AND x.id!=alerts.id)");
    up.bind(1, b.id).bind(2, a.id).bind(3, b.started_ms).bind(4, std::string(detect::to_string(kind))).bind(5, detect::severity(kind))
        .bind(6, cp.before).bind(7, cp.after).bind(8, 100 * cp.delta_rel).bind(9, 100 * cp.noise_rel)
        .bind(10, 100 * cp.floor_rel).bind(11, cp.score).bind(12, cp.p_value)
        .bind(13, static_cast<std::int64_t>(cp.n_before)).bind(14, static_cast<std::int64_t>(cp.n_after))
        .bind(15, attribution.cause).bind(16, stored_text(attribution))
        .bind(17, format_iso8601_ms(now_ms())).bind(18, alert_id)
        .bind(19, b.id).bind(20, std::string(detect::to_string(kind))).run();
    if (up.changes() > 0) raised.push_back(alert_id);
  }

  // An alert the gate raised stays one when the detector takes it over: the gate's floor confirmed it (the verdict
  // fails while it is present, without the score a detector's own alert must reach).
  AlertAttribution with_gate_of(std::int64_t alert_id, AlertAttribution attribution) {
    auto& st = w.q("SELECT attribution FROM alerts WHERE id=?");
    st.bind(1, alert_id);
    const auto old = st.step() ? read_attribution(st.text(0)) : std::nullopt;
    st.reset();
    if (old && old->gate && !attribution.gate) {
      attribution.gate = old->gate;
      attribution.summary = "raised by the single-run gate at run " + old->gate->run + "; " + attribution.summary;
    }
    return attribution;
  }

  // A regression undone by a later change point back to its old level: closed as fixed (if untriaged), with the
  // run that undid it, instead of a new improvement alert.
  void close_reverted(std::int64_t alert_id, const detect::ChangePoint& cp, const Window& win) {
    const RunInfo b = load_run(w, win.pts[cp.index].run_id);
    char note[200];
    std::snprintf(note, sizeof note, "reverted at run %s: back to %.0f ns (%+.1f%%)", b.key.c_str(), cp.after,
                  100 * cp.delta_rel);
    const auto l = self.db_.detector_write_lock();
    ++alert_writes;
    w.q("UPDATE alerts SET state='fixed', state_by='evidence', note=?, updated_at=? WHERE id=? AND state='new'")
        .bind(1, std::string(note)).bind(2, format_iso8601_ms(now_ms())).bind(3, alert_id).run();
  }

  // A change in the series' run-to-run noise: one `noise` alert per change (within min_segment runs of its
  // boundary), moved with the evidence while untriaged.
  void noise(std::int64_t sid, const std::optional<detect::NoiseChange>& nc, const Window& win) {
    if (!nc) return;
    auto& st = w.q("SELECT id, run_id, state FROM alerts WHERE series_id=? AND kind='noise' AND started_ms>=?");
    st.bind(1, sid).bind(2, win.pts.front().started_ms);
    std::optional<std::int64_t> moving;
    bool known = false;
    while (st.step()) {
      const auto at = index_in(win, st.i64(1));
      if (!at || (*at > nc->index ? *at - nc->index : nc->index - *at) >= params().min_segment) continue;
      known = true;
      if (st.text(2) == "new" && *at != nc->index) moving = st.i64(0);
    }
    st.reset();
    if (known && !moving) return;
    const auto cp = as_change_point(*nc, win.pts);
    const auto [a, b] = boundary(win, nc->index);
    const AlertAttribution attribution = with_noise(attribute_change(w, sid, a, b, nc->ratio, ChangeOf::Noise, params()), *nc, b.key);
    if (moving)
      move_alert(*moving, b, a, detect::AlertKind::Noise, cp, attribution);
    else
      insert_alert(sid, b, &a, detect::AlertKind::Noise, &cp, attribution);
  }

  // The single-run gate's judgement of this main run: the verdict's own, over the same evidence (read on `c`).
  struct GateJudgement {
    analysis::GateParams gate;  // as resolved for the run's branch and GPU
    analysis::RunEvidence evidence;
    analysis::RunVerdict verdict;  // points into evidence
  };
  // `pool` judges the benchmarks side by side.
  static std::unique_ptr<GateJudgement> judge_gate(sql::Conn& c, std::int64_t run_pk, const DetectorOptions& opts,
                                                   MainHistory* history, SeriesNames& names, WorkerPool& pool) {
    const JudgedRun judged = load_judged_run(c, run_pk);
    std::optional<VerdictBaseline> baseline;
    const LevelBound bound = level_bound(c, judged, opts.main_branch, baseline);
    auto j = std::make_unique<GateJudgement>();
    j->gate = analysis::resolve_gate(opts.gate, opts.gate_config, judged.branch, judged.gpu_name).params;
    j->evidence = load_evidence(c, judged, bound,
                                {opts.detect, j->gate, opts.main_branch, opts.gate_cpu_timings, history, opts.what_ran, names});
    c.reset_all();
    j->verdict = analysis::judge(j->evidence, opts.detect, j->gate, std::bind_front(&WorkerPool::parallel_for, &pool));
    return j;
  }

  // A slowdown the verdict's single-run gate fails on this main run is a regression alert at this run, attributed
  // like the detector's: later main runs fail while it is present (analysis::judge), the revert closes it, and the
  // detector's change point, once it has the runs, takes the alert over (moves it, settles its numbers). The
  // judgement is the verdict's own, over the same evidence, so the alert and the run's verdict cannot disagree.
  // The series it raised an alert on.
  std::vector<std::int64_t> gate_failures(const GateJudgement& judged) {
    std::vector<std::int64_t> alerted;
    const analysis::RunVerdict& v = judged.verdict;
    for (const auto& f : v.slowdowns) {
      const auto& s = f.slowdown;
      const auto prev = previous_main_point(f.benchmark->series_id);
      if (!prev || s.noise <= 0) continue;
      detect::ChangePoint cp;
      cp.n_before = s.runs;
      cp.n_after = 1;
      cp.before = s.baseline;
      cp.after = f.benchmark->value;
      cp.delta_rel = s.delta;
      cp.noise_rel = s.noise;
      cp.floor_rel = s.floor;
      cp.score = std::log1p(s.delta) / s.noise;
      cp.p_value = 0.5 * std::erfc(cp.score / std::sqrt(2.0));
      const RunInfo a = load_run(w, prev->run_id);
      const AlertAttribution attribution = with_gate(
          attribute_change(w, f.benchmark->series_id, a, run, s.delta, ChangeOf::Level, params()), s, cp.after, run.key);
      const std::size_t before = raised.size();
      insert_alert(f.benchmark->series_id, run, &a, detect::AlertKind::Regression, &cp, attribution);
      if (raised.size() > before) alerted.push_back(f.benchmark->series_id);
    }
    return alerted;
  }

  // Performance: regressions gone are closed, then change points over the series' recent window become
  // alerts, new or moved, as the lifecycle's plan says.
  // `found`: what the window shows (analyse()).
  void performance(std::int64_t sid, const Window& win, const WindowAnalysis& found) {
    const auto& P = params();
    if (const auto open = evidence.open.find(sid); open != evidence.open.end())
      alert_writes += self.close_regressions_gone(open->second, win);
    if (!found.analysed) return;
    noise(sid, found.noise, win);
    const auto& cps = found.change_points;
    if (cps.empty()) return;
    for (const auto& change : lifecycle::plan_performance_alerts(cps, existing_alerts(sid, win), P.min_segment)) {
      const auto& cp = cps[change.change_point];
      if (change.action == lifecycle::Action::Revert) {
        close_reverted(change.alert_id, cp, win);
        continue;
      }
      const auto [a, b] = boundary(win, cp.index);
      const AlertAttribution attribution = with_trend(attribute_change(w, sid, a, b, cp.delta_rel, ChangeOf::Level, P), cp, b.key);
      if (change.action == lifecycle::Action::Insert) {
        insert_alert(sid, b, &a, change.kind, &cp, attribution);
      } else {
        move_alert(change.alert_id, b, a, change.kind, cp, with_gate_of(change.alert_id, attribution));
      }
    }
  }
};

std::vector<std::int64_t> RunDetector::detect_run(std::int64_t run_pk, const std::vector<std::int64_t>& series_ids) {
  auto& w = db_.detector();
  Pass pass{*this, w, load_run(w, run_pk), {}, {}};
  // On a database other server processes share, a run's detection is one transaction under its GPU's
  // lock (every series a run touches is that GPU's), the windows first taken up to the runs the others added.
  std::optional<sql::Tx> tx;
  if (w.shared()) {
    tx.emplace(w, false);
    w.lock_in_transaction(pass.run.gpu_id);
  }
  // A main run's gate judgement (only main runs touch series) reads what this pass may write only where it writes
  // alerts: it is judged on detection's reader meanwhile (which reads what is committed: on a shared database no other
  // process writes this GPU's alerts while this pass holds its lock), and judged again in the rare pass that wrote
  // an alert. It is what detection waits on last, so it starts first, before the windows are taken up. The GPU's
  // noise model for this run is being learned ahead (after its previous run): the gate is judged once that is done.
  std::shared_future<void> model_ahead;
  if (const auto it = models_ahead_.find(pass.run.gpu_id); it != models_ahead_.end()) model_ahead = std::move(it->second);
  const auto judge_gate = [&](sql::Conn& c) {
    if (model_ahead.valid()) model_ahead.wait();
    return Pass::judge_gate(c, run_pk, opts_, db_.main_history(), db_.series_names(), pool_);
  };
  std::vector<const Window*> windows;
  std::vector<WindowAnalysis> found;
  std::future<std::unique_ptr<Pass::GateJudgement>> gate;
  std::future<void> analysed;
  // The tasks read this frame (what is declared above): joined before it goes, an exception's way out included.
  const JoinedOnExit<std::unique_ptr<Pass::GateJudgement>> gate_joined{gate};
  const JoinedOnExit<void> analysis_joined{analysed};
  if (sql::Conn* reader = db_.detector_reader(); reader && !series_ids.empty())
    gate = pool_.submit([reader, &judge_gate] {
      auto judged = judge_gate(*reader);
      reader->reset_all();
      return judged;
    });
  if (w.shared()) {
    if (!series_ids.empty()) windows_follower_.taken_in(pass.run.gpu_id, run_pk);  // after_ingest took its points in
    windows_follower_.catch_up(w, pass.run.gpu_id, opts_.main_branch, [&](const MainRunsBehind& behind) {
      if (behind.forget_all) windows_.clear();
      for (const auto& [sid, p] : behind.points) take_into_window(sid, {p.started_ms, p.run_id, p.value});
    });
  }
  load_windows(pass.run.id, pass.run.gpu_id, series_ids);
  if (windows_.size() + series_ids.size() > kMostWindows) windows_.clear();  // no clear while they are gathered
  windows.reserve(series_ids.size());
  for (const std::int64_t sid : series_ids) windows.push_back(&window_for(sid));
  // The windows' levels and noise (pure) on the pool, while this thread reads the run's evidence.
  found.resize(series_ids.size());
  analysed = pool_.submit([&] {
    if (series_ids.size() >= detect::kGpuNoiseMinSeries) {
      std::vector<std::vector<detect::RunValue>> gpu_series;
      gpu_series.reserve(series_ids.size());
      for (const Window* win : windows) {
        auto& s = gpu_series.emplace_back();
        for (const auto& p : win->pts) s.push_back({p.run_id, p.log_value});
      }
      pass.gpu_noise = detect::gpu_noise_by_run(gpu_series);
    }
    pool_.parallel_for(series_ids.size(),
                       [&](std::size_t i) { found[i] = Pass::analyse(*windows[i], opts_.detect, pass.gpu_noise); });
  });
  pass.evidence = load_evidence(w, pass.run);
  if (opts_.what_ran && gate.valid()) opts_.what_ran->get(w, run_pk);  // the gate's read of it, done here meanwhile
  analysed.get();
  for (std::size_t i = 0; i < series_ids.size(); ++i) {
    pass.correctness(series_ids[i]);
    pass.reweigh_siblings(series_ids[i]);
    pass.performance(series_ids[i], *windows[i], found[i]);
  }
  if (!series_ids.empty()) {
    auto judged = gate.valid() ? gate.get() : nullptr;
    if (!judged || pass.alert_writes > 0) judged = judge_gate(w);
    const auto alerted = pass.gate_failures(*judged);
    // The next run's model, learned while this GPU's next run is on its way.
    models_ahead_[pass.run.gpu_id] = pool_.submit([j = std::shared_ptr<Pass::GateJudgement>(std::move(judged)), alerted] {
      try {
        analysis::learn_next_noise_model(j->evidence, alerted, j->gate);
      } catch (const std::exception& e) {
        std::cerr << "shaderwatch-server: learning the next run's noise model ahead failed: " << e.what() << "\n";
      }
    }).share();
  }
  if (tx) tx->commit();
  return std::move(pass.raised);
}

std::vector<std::int64_t> RunDetector::after_ingest(const WrittenRun& run) {
  std::vector<std::int64_t> raised;
  std::lock_guard dl(db_.detect_mutex());
  const auto t0 = mono_ns();
  // Keep the cached detection windows in step with what was committed.
  for (const auto& [sid, reps] : run.fresh) take_into_window(sid, {run.started_ms, run.run_pk, stats::median(reps)});
  // The run is stored; a detector failure must not lose it. Logged for the operator, and tried again: a
  // broken database connection is made again by the try that met it, and detection has two (its own and its reader).
  constexpr int kTries = 3;
  for (int attempt = 1; attempt <= kTries; ++attempt) {
    try {
      raised = detect_run(run.run_pk, run.touched);
      break;
    } catch (const std::exception& e) {
      std::cerr << "shaderwatch-server: detection failed for run " << run.run_key << " (try " << attempt
                << " of " << kTries << "): " << e.what() << "\n";
      db_.detector().reset_all();
    }
  }
  db_.detector().reset_all();
  detect_ns_ += mono_ns() - t0;
  return raised;
}

}  // namespace shaderwatch
