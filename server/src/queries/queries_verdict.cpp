// GET /api/v1/runs/{id}/verdict, the answer CI gates on: the run's evidence is loaded (verdict_evidence.h),
// judged by analysis::judge, and returned with the alerts it names.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <shaderwatch/result_contract.h>

#include "detection/alert_states.h"
#include "detection/analysis.h"
#include "queries/alert_loader.h"
#include "queries/queries.h"
#include "queries/query_helpers.h"
#include "queries/run_counters.h"
#include "queries/verdict_evidence.h"
#include "queries/verdict_explanation.h"

namespace shaderwatch {

namespace {

// Kernels the device could not run or an expectations entry skipped: neither a pass nor a failure,
// listed so nobody mistakes them for either.
std::vector<SkippedEntry> skipped_kernels(sql::Conn& c, std::int64_t pk) {
  std::vector<SkippedEntry> skipped;
  const auto word = [](RowStatus s) { return std::string(contract::row_status_word(s)); };
  auto& st = c.q("SELECT bm.name, r.status, MIN(r.error_message) FROM results r JOIN benchmarks bm ON"
                 " bm.id=r.benchmark_id WHERE r.run_id=? AND r.status IN ('" + word(RowStatus::Unsupported) + "','" +
                 word(RowStatus::Skip) + "') GROUP BY bm.name, r.status ORDER BY bm.name");
  st.bind(1, pk);
  while (st.step()) {
    const std::string message = st.text(2);
    const bool unsupported = status_of(st.text(1)) == RowStatus::Unsupported;
    const std::string_view prefix = unsupported && message.starts_with(contract::kUnsupportedPrefix) ? contract::kUnsupportedPrefix : "";
    skipped.push_back({st.text(0), message.substr(prefix.size())});
  }
  return skipped;
}

std::vector<Alert> load_alerts(sql::Conn& c, const std::vector<std::int64_t>& ids) {
  std::vector<Alert> out;
  for (const auto id : ids) out.push_back(load_alert(c, id));
  return out;
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

// Open noise alerts of the run's series at or before it, whose noise rose: how many, by how much, since when
// and why (the most common boundary and cause among them). Named only where they are kNoisyShare of the run's
// series or more: a runner or driver is shared by all of them, and a few series' noise alerts (true, or one of
// the few false ones a fleet sees) are their alerts' to tell, not the run's. (Any number named a noisy runner on
// 16-36 of 240 runs of quiet GPUs, 350 benchmarks.)
constexpr double kNoisyShare = 0.1;
std::optional<NoiseNote> noise_note(sql::Conn& c, const JudgedRun& run) {
  auto& st = c.q("SELECT r.run_key, a.cause, a.attribution FROM alerts a JOIN points p ON p.series_id=a.series_id"
                 " AND p.run_id=? JOIN runs r ON r.id=a.run_id WHERE a.kind='noise' AND a.state IN " + open_alert_states_sql() +
                 " AND (a.started_ms, a.run_id) <= (?, ?)");
  st.bind(1, run.pk).bind(2, run.started_ms).bind(3, run.pk);
  std::vector<double> ratios;
  std::map<std::string, int> since, causes;
  while (st.step()) {
    const auto attribution = nlohmann::json::parse(st.text(2), nullptr, false);
    const double ratio = attribution.is_object() ? attribution.value("/noise/ratio"_json_pointer, 1.0) : 1.0;
    if (ratio <= 1) continue;
    ratios.push_back(ratio);
    ++since[st.text(0)];
    ++causes[st.text(1)];
  }
  st.reset();
  if (ratios.empty()) return std::nullopt;
  auto& count = c.q("SELECT COUNT(*) FROM points WHERE run_id=?");
  count.bind(1, run.pk);
  const double series = count.step() ? static_cast<double>(count.i64(0)) : 0;
  count.reset();
  if (static_cast<double>(ratios.size()) < std::max(1.0, kNoisyShare * series)) return std::nullopt;
  const auto most = [](const std::map<std::string, int>& m) {
    return std::max_element(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  };
  NoiseNote n;
  n.benchmarks = static_cast<int>(ratios.size());
  n.ratio = stats::median(ratios);
  n.since_run = most(since);
  n.cause = most(causes);
  char text[200];
  std::snprintf(text, sizeof text, "%s noisy: %d benchmark%s' spread x%.1f since run %s (cause: %s)",
                n.cause == "driver" ? "driver" : n.cause == "commit" ? "code" : "runner", n.benchmarks,
                n.benchmarks == 1 ? "" : "s", n.ratio, n.since_run.c_str(), n.cause.c_str());
  n.line = text;
  return n;
}

}  // namespace

Verdict Queries::verdict(const std::string& key) {
  auto c = db_.reader();
  const JudgedRun run = load_judged_run(*c, run_pk(*c, key, "run_id"));
  Verdict out;
  out.run_id = key;
  out.branch = run.branch;
  const LevelBound bound = level_bound(*c, run, opts_.main_branch, out.baseline);
  // The evidence, loaded; the judgement is analysis::judge's.
  const analysis::RunEvidence evidence =
      load_evidence(*c, run, bound, {opts_.detect, opts_.gate, opts_.main_branch, opts_.gate_cpu_timings});
  const analysis::RunVerdict v = analysis::judge(evidence, opts_.detect, opts_.gate);
  out.fail = v.fail;
  add_findings(v, out);
  out.regressions = load_alerts(*c, v.regressions);
  out.acknowledged_regressions = load_alerts(*c, v.acknowledged);
  out.unconfirmed_regressions = load_alerts(*c, v.unconfirmed);
  out.skipped = skipped_kernels(*c, run.pk);
  out.explanations = explain_verdict(*c, run, out);
  out.coverage = {v.coverage, evidence.timings_gated, 100 * std::expm1(v.coverage.swing),
                  analysis::coverage_line(v.coverage, opts_.detect, opts_.gate)};
  out.noise = noise_note(*c, run);
  return out;
}

}  // namespace shaderwatch
