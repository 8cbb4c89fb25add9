// GET /api/v1/runs/{id}/verdict, the answer CI gates on: the run's evidence is loaded (verdict_evidence.h),
// judged by analysis::judge, and returned with the alerts it names.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "detection/alert_attribution.h"
#include "common/alert_states.h"
#include "detection/analysis.h"
#include "queries/alert_loader.h"
#include "queries/queries.h"
#include "queries/query_helpers.h"
#include "queries/run_counters.h"
#include "detection/verdict_evidence.h"
#include "queries/verdict_cache.h"
#include "storage/result_sets.h"
#include "queries/verdict_explanation.h"

namespace shaderwatch {

namespace {

// Kernels the device could not run or an expectations entry skipped: neither a pass nor a failure,
// listed so nobody mistakes them for either.
std::vector<SkippedEntry> skipped_kernels(sql::Conn& c, std::int64_t pk) {
  std::vector<SkippedEntry> skipped;
  // The first message of each benchmark and status (by text, as SQL's MIN would), in the order of names.
  std::map<std::pair<std::string, RowStatus>, std::string> first;
  const RunShapes run = run_shapes(c, pk);
  for (const auto& [name, shape_id] : run.benchmarks) {
    for (const auto& r : run.shapes.at(shape_id)) {
      if (r.status != RowStatus::Unsupported && r.status != RowStatus::Skip) continue;
      const auto [it, fresh] = first.try_emplace({name, r.status}, r.error_message);
      if (!fresh && r.error_message < it->second) it->second = r.error_message;
    }
  }
  for (const auto& [key, message] : first) {
    const bool unsupported = key.second == RowStatus::Unsupported;
    const std::string_view prefix = unsupported && message.starts_with(contract::kUnsupportedPrefix) ? contract::kUnsupportedPrefix : "";
    skipped.push_back({key.first, message.substr(prefix.size())});
  }
  return skipped;
}

// The judge's findings as the answer lists them.
void add_findings(const analysis::RunVerdict& v, Verdict& out) {
  for (const auto& f : v.correctness)
    out.correctness.push_back({f.benchmark->name, f.benchmark->series_id, f.kind, f.benchmark->error_message});
  for (const auto& f : v.suspects)
    out.suspects.push_back({f.benchmark->name, f.benchmark->series_id, f.suspect.level, f.benchmark->value,
                            100 * f.suspect.delta, 100 * f.suspect.floor, f.suspect.z, 100 * f.suspect.gate_floor,
                            f.suspect.against, f.suspect.runs});
  for (const auto& f : v.slowdowns)
    out.slowdowns.push_back({f.benchmark->name, f.benchmark->series_id, f.slowdown.against, f.slowdown.runs,
                             f.slowdown.baseline, f.benchmark->value, 100 * f.slowdown.delta, 100 * f.slowdown.floor,
                             100 * f.slowdown.noise});
}

// The run's series whose noise rose (open noise alerts at or before it), named as analysis::noise_finding decides.
std::optional<NoiseNote> noise_note(sql::Conn& c, const JudgedRun& run) {
  auto& st = c.q("SELECT r.run_key, a.cause, a.attribution FROM alerts a JOIN points p ON p.series_id=a.series_id"
                 " AND p.run_id=? JOIN runs r ON r.id=a.run_id WHERE a.kind='noise' AND a.state IN " + open_alert_states_sql() +
                 " AND (a.started_ms, a.run_id) <= (?, ?)");
  st.bind(1, run.pk).bind(2, run.started_ms).bind(3, run.pk);
  std::vector<analysis::NoisySeries> open_noise;
  while (st.step()) {
    const auto attribution = read_attribution(st.text(2));
    const double ratio = attribution && attribution->noise ? attribution->noise->ratio : 1.0;
    open_noise.push_back({ratio, st.text(0), st.text(1)});
  }
  st.reset();
  if (open_noise.empty()) return std::nullopt;
  auto& count = c.q("SELECT COUNT(*) FROM points WHERE run_id=?");
  count.bind(1, run.pk);
  const std::size_t series = count.step() ? static_cast<std::size_t>(count.i64(0)) : 0;
  count.reset();
  const auto f = analysis::noise_finding(open_noise, series);
  if (!f) return std::nullopt;
  NoiseNote n{f->benchmarks, f->ratio, f->since_run, f->cause, ""};
  char text[200];
  std::snprintf(text, sizeof text, "%s noisy: %d benchmark%s' spread x%.1f since run %s (cause: %s)",
                n.cause == "driver" ? "driver" : n.cause == "commit" ? "code" : "runner", n.benchmarks,
                n.benchmarks == 1 ? "" : "s", n.ratio, n.since_run.c_str(), n.cause.c_str());
  n.line = text;
  return n;
}

// The run asked for, and what its verdict would be judged on now (the verdict cache's key).
struct Asked {
  JudgedRun run;
  std::string judged_on;
};
Asked asked(sql::Conn& c, const std::string& key, const std::string& main_branch) {
  JudgedRun run = load_judged_run(c, run_pk(c, key, "run_id"));
  std::string judged_on = VerdictCache::key(c, run.pk, run.branch == main_branch);
  return {std::move(run), std::move(judged_on)};
}

}  // namespace

std::optional<Verdict> Queries::kept_verdict(const std::string& key) {
  auto c = db_.reader();
  const Asked a = asked(*c, key, opts_.main_branch);
  return verdicts_->get(a.run.pk, a.judged_on);
}

Verdict Queries::verdict(const std::string& key) {
  auto c = db_.reader();
  const auto [run, judged_on] = asked(*c, key, opts_.main_branch);
  if (auto kept = verdicts_->get(run.pk, judged_on)) return std::move(*kept);
  Verdict out;
  out.run_id = key;
  out.branch = run.branch;
  const LevelBound bound = level_bound(*c, run, opts_.main_branch, out.baseline);
  const analysis::ResolvedGate gate = analysis::resolve_gate(opts_.gate, opts_.gate_config, run.branch, run.gpu_name);
  // The evidence, loaded; the judgement is analysis::judge's.
  const analysis::RunEvidence evidence =
      load_evidence(*c, run, bound, {opts_.detect, gate.params, opts_.main_branch, opts_.gate_cpu_timings, db_.main_history(), opts_.what_ran,
                                    db_.series_names()});
  // Its benchmarks judged side by side on the pool the overview's verdicts use (by this thread alone where that
  // pool is busy with them).
  const analysis::RunVerdict v =
      analysis::judge(evidence, opts_.detect, gate.params, std::bind_front(&WorkerPool::parallel_for, &judges_));
  out.fail = v.fail;
  add_findings(v, out);
  out.regressions = load_alerts(*c, v.regressions);
  out.acknowledged_regressions = load_alerts(*c, v.acknowledged);
  out.unconfirmed_regressions = load_alerts(*c, v.unconfirmed);
  out.skipped = skipped_kernels(*c, run.pk);
  out.explanations = explain_verdict(*c, run, out);
  out.coverage = {v.coverage, evidence.timings_gated, 100 * std::expm1(v.coverage.swing),
                  analysis::coverage_line(v.coverage, opts_.detect, gate.params), gate.note};
  if (!gate.note.empty()) out.coverage.line += "; " + gate.note;
  out.noise = noise_note(*c, run);
  verdicts_->put(run.pk, judged_on, out);
  return out;
}

}  // namespace shaderwatch
