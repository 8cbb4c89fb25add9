#include "detection/change_attribution.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "common/compiled_statistics.h"
#include "detection/attribution.h"
#include "ingest/benchmark_name.h"


namespace shaderwatch {

RunInfo load_run(sql::Conn& c, std::int64_t id) {
  auto& st = c.q("SELECT run_key, commit_id, driver_name, driver_version, runner, started_ms, gpu_id,"
                 " driver_info, driver_uuid FROM runs WHERE id=?");
  st.bind(1, id);
  if (!st.step()) throw std::runtime_error("run vanished");
  RunInfo r;
  r.id = id;
  r.key = st.text(0);
  r.commit = st.text(1);
  r.driver = {st.text(2), st.text(3), st.text(7), st.text(8)};
  r.runner = st.text(4);
  r.started_ms = st.i64(5);
  r.gpu_id = st.i64(6);
  return r;
}

namespace {

// The measured main-branch values of series `sid` before (`before`) or from the point (ms, run), nearest first, at
// most `limit`.
std::vector<double> series_values(sql::Conn& c, bool before, std::int64_t sid, std::int64_t ms, std::int64_t run,
                                  int limit) {
  auto& st = c.q(before ? "SELECT value_ns FROM points WHERE series_id=? AND (started_ms, run_id) < (?, ?) AND on_main=1"
                          " AND value_ns IS NOT NULL ORDER BY started_ms DESC, run_id DESC LIMIT ?"
                        : "SELECT value_ns FROM points WHERE series_id=? AND (started_ms, run_id) >= (?, ?) AND on_main=1"
                          " AND value_ns IS NOT NULL ORDER BY started_ms, run_id LIMIT ?");
  st.bind(1, sid).bind(2, ms).bind(3, run).bind(4, limit);
  std::vector<double> v;
  while (st.step()) v.push_back(st.f64(0));
  return v;
}
std::vector<double> values_before(sql::Conn& c, std::int64_t sid, std::int64_t ms, std::int64_t run, int limit) {
  return series_values(c, true, sid, ms, run, limit);
}
std::vector<double> values_from(sql::Conn& c, std::int64_t sid, std::int64_t ms, std::int64_t run, int limit) {
  return series_values(c, false, sid, ms, run, limit);
}

// The run `n` main runs before (n < 0) or after (n > 0) run `a` in series sid, or the farthest there is.
RunInfo run_near(sql::Conn& c, std::int64_t sid, const RunInfo& a, int n) {
  auto& st = c.q(n < 0 ? "SELECT run_id FROM points WHERE series_id=? AND (started_ms, run_id) < (?, ?) AND on_main=1"
                         " ORDER BY started_ms DESC, run_id DESC LIMIT ?"
                       : "SELECT run_id FROM points WHERE series_id=? AND (started_ms, run_id) > (?, ?) AND on_main=1"
                         " ORDER BY started_ms, run_id LIMIT ?");
  st.bind(1, sid).bind(2, a.started_ms).bind(3, a.id).bind(4, std::abs(n));
  std::int64_t id = a.id;
  while (st.step()) id = st.i64(0);
  st.reset();
  return id == a.id ? a : load_run(c, id);
}


// Whether a sibling series changed with this one at the boundary: stepped the same way, or its noise changed the
// same way (reported as a step of its noise ratio).
detect::SiblingStep sibling_change(const std::vector<double>& before, const std::vector<double>& after, double own,
                                   ChangeOf what, const detect::Params& params) {
  if (what != ChangeOf::Noise) return detect::sibling_step(before, after, own, params);
  const auto n = detect::sibling_noise(before, after, own, params);
  detect::SiblingStep s;
  s.present = n.present;
  s.stepped = n.changed;
  s.delta_rel = n.ratio - 1;
  return s;
}

// What series sid's kernel ran as in run `run`: its SPIR-V (from the run's compiled section, else the point's),
// input and the driver's statistics (none where the run did not record them).
Compilation ran_in(sql::Conn& c, std::int64_t sid, const std::string& kernel, std::int64_t run) {
  auto& st = c.q("SELECT p.spirv, cm.spirv, cm.input, cm.pipelines FROM points p"
                 " LEFT JOIN run_compiled rc ON rc.run_id=p.run_id AND rc.kernel=?"
                 " LEFT JOIN compiled cm ON cm.id=rc.compiled_id WHERE p.series_id=? AND p.run_id=?");
  st.bind(1, kernel).bind(2, sid).bind(3, run);
  Compilation r;
  if (st.step()) {
    if (st.null(1)) {
      r.spirv = st.text(0);
    } else {
      r.spirv = st.text(1);
      r.input = st.text(2);
      r.statistics = flatten_statistics(st.text(3));
    }
  }
  st.reset();
  return r;
}

detect::CompiledEvidence compiled_evidence(sql::Conn& c, std::int64_t sid, const RunInfo& early, const RunInfo& late) {
  auto& name = c.q("SELECT bm.name FROM series s JOIN benchmarks bm ON bm.id=s.benchmark_id WHERE s.id=?");
  name.bind(1, sid);
  const std::string kernel = name.step() ? split_name(name.text(0)).kernel() : std::string();
  name.reset();
  const Compilation a = ran_in(c, sid, kernel, early.id), b = ran_in(c, sid, kernel, late.id);
  detect::CompiledEvidence e;
  e.spirv_known = !a.spirv.empty() && !b.spirv.empty();
  e.spirv_before = a.spirv;
  e.spirv_after = b.spirv;
  // An input is compared only where both runs name it (a run before the compiled section names none).
  e.input_before = a.input.empty() || b.input.empty() ? b.input : a.input;
  e.input_after = b.input;
  e.statistics_known = !a.statistics.empty() && !b.statistics.empty();
  if (e.statistics_known) std::tie(e.statistics_before, e.statistics_after) = statistics_difference(a.statistics, b.statistics);
  return e;
}

}  // namespace

RunDifference what_changed(sql::Conn& c, std::int64_t sid, const std::string& kernel, const RunInfo& before,
                           const RunInfo& after) {
  RunDifference d;
  const Compilation a = ran_in(c, sid, kernel, before.id), b = ran_in(c, sid, kernel, after.id);
  const auto short_hash = [](const std::string& h) { return h.substr(0, 8); };
  std::vector<std::string> same;
  if (a.spirv.empty() || b.spirv.empty()) d.unknown.push_back("SPIR-V");
  else if (a.spirv != b.spirv) d.changed.push_back("SPIR-V " + short_hash(a.spirv) + " -> " + short_hash(b.spirv));
  else same.push_back("SPIR-V");
  if (!a.input.empty() && !b.input.empty() && a.input != b.input) d.changed.push_back("input " + a.input + " -> " + b.input);
  if (a.statistics.empty() || b.statistics.empty()) {
    d.unknown.push_back("compiled statistics");
  } else {
    const auto changes = statistic_changes(a.statistics, b.statistics);
    constexpr std::size_t kNamed = 4;  // the rest counted: a new compiler can change dozens
    for (std::size_t i = 0; i < changes.size() && i < kNamed; ++i)
      d.changed.push_back(changes[i].name + " " + changes[i].before + " -> " + changes[i].after);
    if (changes.size() > kNamed) d.changed.push_back(std::to_string(changes.size() - kNamed) + " more compiled statistics");
    if (changes.empty()) same.push_back("compiled statistics");
  }
  if (before.driver != after.driver) {
    const auto t = driver_change_text(before.driver, after.driver);
    d.changed.push_back("driver " + t.before + " -> " + t.after);
  } else {
    same.push_back("driver");
  }
  if (before.runner != after.runner) d.changed.push_back("runner " + before.runner + " -> " + after.runner);
  else same.push_back("runner");
  for (std::size_t i = 0; i < same.size(); ++i)
    d.same.append(i == 0 ? "" : i + 1 == same.size() ? " and " : ", ").append(same[i]);
  return d;
}

AlertAttribution attribute_change(sql::Conn& c, std::int64_t sid, const RunInfo& a, const RunInfo& b, double own,
                                  ChangeOf what, const detect::Params& params) {
  detect::AttributionInput in;
  const bool correctness = what == ChangeOf::Correctness;
  // A performance step is placed to within a run or two (noise can make a neighbour look stepped), a change in
  // noise to within min_segment runs: a driver or runner change that near the boundary counts as at it. A
  // correctness change is placed exactly.
  const int slack = what == ChangeOf::Noise ? static_cast<int>(params.min_segment) : 2;
  const RunInfo early = correctness ? a : run_near(c, sid, a, -slack), late = correctness ? b : run_near(c, sid, b, slack);
  in.driver_changed = early.driver != late.driver;
  in.commit_changed = a.commit != b.commit;
  in.noise = what == ChangeOf::Noise;
  in.runner_changed = early.runner != late.runner;
  const auto driver_text = driver_change_text(early.driver, late.driver);
  in.driver_before = driver_text.before;
  in.driver_after = driver_text.after;
  in.commit_before = a.commit;
  in.commit_after = b.commit;
  in.runner_before = early.runner;
  in.runner_after = late.runner;
  in.compiled = compiled_evidence(c, sid, early, late);
  constexpr int kSide = 12;
  AttributionFindings f;
  {
    auto& st = c.q("SELECT s.id, g.name, g.id FROM series s JOIN gpus g ON g.id=s.gpu_id"
                   " WHERE s.benchmark_id=(SELECT benchmark_id FROM series WHERE id=?) AND s.id!=?"
                   " ORDER BY s.id LIMIT 16");
    st.bind(1, sid).bind(2, sid);
    std::vector<std::tuple<std::int64_t, std::string, std::int64_t>> sibs;
    while (st.step()) sibs.emplace_back(st.i64(0), st.text(1), st.i64(2));
    for (const auto& [ssid, gname, gid] : sibs) {
      detect::SiblingEvidence ev{gname, {}};
      auto& first = c.q("SELECT started_ms, id FROM runs WHERE commit_id=? AND gpu_id=? AND"
                        " EXISTS(SELECT 1 FROM points p WHERE p.run_id=runs.id AND p.on_main=1)"
                        " ORDER BY started_ms, id LIMIT 1");
      first.bind(1, b.commit).bind(2, gid);
      if (first.step()) {
        const auto ms = first.i64(0), rid = first.i64(1);
        first.reset();
        if (correctness) {
          // For correctness the sibling "stepped" when it also fails at that commit.
          auto& f = c.q("SELECT n_errors FROM points WHERE series_id=? AND run_id=?");
          f.bind(1, ssid).bind(2, rid);
          if (f.step()) {
            ev.step.present = true;
            ev.step.stepped = f.i64(0) > 0;
          }
        } else {
          ev.step = sibling_change(values_before(c, ssid, ms, rid, kSide), values_from(c, ssid, ms, rid, kSide), own,
                                   what, params);
        }
      }
      in.gpu_siblings.push_back(ev);
      if (ev.step.present) f.gpu_siblings.detail.push_back({gname, ev.step.stepped, 100 * ev.step.delta_rel});
    }
  }
  {
    auto& st = c.q("SELECT p.series_id, bm.name, p.n_errors FROM points p JOIN series s ON s.id=p.series_id"
                   " JOIN benchmarks bm ON bm.id=s.benchmark_id WHERE p.run_id=? AND p.series_id!=?"
                   " ORDER BY p.series_id LIMIT 24");
    st.bind(1, b.id).bind(2, sid);
    std::vector<std::tuple<std::int64_t, std::string, std::int64_t>> sibs;
    while (st.step()) sibs.emplace_back(st.i64(0), st.text(1), st.i64(2));
    for (const auto& [ssid, bname, nerr] : sibs) {
      detect::SiblingEvidence ev{bname, {}};
      if (correctness) {
        ev.step.present = true;
        ev.step.stepped = nerr > 0;
      } else {
        ev.step = sibling_change(values_before(c, ssid, b.started_ms, b.id, kSide),
                                 values_from(c, ssid, b.started_ms, b.id, kSide), own, what, params);
      }
      in.kernel_siblings.push_back(ev);
      if (ev.step.present && f.kernel_siblings.detail.size() < 12)
        f.kernel_siblings.detail.push_back({bname, ev.step.stepped, 100 * ev.step.delta_rel});
    }
  }
  const auto at = detect::attribute(in);
  const auto& ce = in.compiled;
  f.compiled = {ce.spirv_before, ce.spirv_after, ce.statistics_known, std::nullopt, std::nullopt};
  if (ce.statistics_changed()) f.compiled.statistics = {ce.statistics_before, ce.statistics_after};
  if (ce.input_changed()) f.compiled.input = {ce.input_before, ce.input_after};
  if (at.evidence_class != detect::EvidenceClass::None) f.evidence_class = detect::to_string(at.evidence_class);
  f.evidence = at.evidence;
  f.driver_changed = in.driver_changed;
  f.commit_changed = in.commit_changed;
  f.runner_changed = in.runner_changed;
  f.driver_before = in.driver_before;
  f.driver_after = in.driver_after;
  f.commit_before = a.commit;
  f.commit_after = b.commit;
  f.gpu_siblings.checked = at.gpu_siblings_checked;
  f.gpu_siblings.stepped = at.gpu_siblings_stepped;
  f.kernel_siblings.checked = at.kernel_siblings_checked;
  f.kernel_siblings.stepped = at.kernel_siblings_stepped;
  return {.cause = detect::to_string(at.cause), .summary = at.summary, .findings = std::move(f)};
}

AlertAttribution with_trend(AlertAttribution attribution, const detect::ChangePoint& cp, const std::string& since_run) {
  if (!cp.trend) return attribution;
  char text[160];
  std::snprintf(text, sizeof text, "drift: %+.2f%% per run since run %s (%+.1f%% so far); ", 100 * cp.rate_rel,
                since_run.c_str(), 100 * cp.delta_rel);
  attribution.trend = TrendMark{100 * cp.rate_rel, since_run, cp.n_after};
  attribution.summary = text + attribution.summary;
  return attribution;
}

AlertAttribution with_gate(AlertAttribution attribution, const analysis::Slowdown& s, double value_ns, const std::string& run) {
  char text[200];
  std::snprintf(text, sizeof text, "failed the single-run gate at run %s: %+.1f%% against %s of %zu run%s (floor %.1f%%); ",
                run.c_str(), 100 * s.delta, s.against == analysis::Baseline::Level ? "the level" : "the previous runs",
                s.runs, s.runs == 1 ? "" : "s", 100 * s.floor);
  attribution.gate = GateMark{run, analysis::to_string(s.against), s.runs, s.baseline, value_ns, 100 * s.delta, 100 * s.floor};
  attribution.summary = text + attribution.summary;
  return attribution;
}

AlertAttribution with_noise(AlertAttribution attribution, const detect::NoiseChange& nc, const std::string& since_run) {
  char text[160];
  std::snprintf(text, sizeof text, "run-to-run noise x%.1f (%.2f%% -> %.2f%%) since run %s; ", nc.ratio,
                100 * nc.before_rel, 100 * nc.after_rel, since_run.c_str());
  attribution.noise = NoiseMark{nc.ratio, 100 * nc.before_rel, 100 * nc.after_rel, since_run};
  attribution.summary = text + attribution.summary;
  return attribution;
}

}  // namespace shaderwatch
