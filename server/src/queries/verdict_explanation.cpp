#include "queries/verdict_explanation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include <shaderwatch/dashboard_links.h>

#include "common/quantity_text.h"
#include "detection/change_attribution.h"
#include "ingest/benchmark_name.h"

namespace shaderwatch {
namespace {

std::optional<std::int64_t> run_pk_of(sql::Conn& c, const std::string& key) {
  auto& st = c.q("SELECT id FROM runs WHERE run_key=?");
  st.bind(1, key);
  std::optional<std::int64_t> pk;
  if (st.step()) pk = st.i64(0);
  st.reset();
  return pk;
}

bool has_point(sql::Conn& c, std::int64_t sid, std::int64_t run_pk) {
  auto& st = c.q("SELECT 1 FROM points WHERE series_id=? AND run_id=?");
  st.bind(1, sid).bind(2, run_pk);
  const bool found = st.step();
  st.reset();
  return found;
}

// The series' newest main run before run (ms, pk): what a main run is judged against, and where a branch's merge
// base was not run.
std::optional<std::int64_t> previous_main_run(sql::Conn& c, std::int64_t sid, std::int64_t ms, std::int64_t pk) {
  auto& st = c.q("SELECT run_id FROM points WHERE series_id=? AND on_main=1 AND (started_ms, run_id) < (?, ?)"
                 " ORDER BY started_ms DESC, run_id DESC LIMIT 1");
  st.bind(1, sid).bind(2, ms).bind(3, pk);
  std::optional<std::int64_t> found;
  if (st.step()) found = st.i64(0);
  st.reset();
  return found;
}

std::string merge_base_words(const VerdictBaseline& b) {
  return b.branch + " at the merge base" + (b.merge_base ? " " + b.merge_base->substr(0, 12) : std::string()) +
         (b.run_id ? " (run " + *b.run_id + ")" : std::string());
}

// A single-run slowdown's baseline in words; on another branch it is main's at the merge base, said so.
// A baseline in words (`runs` runs of its level, or the previous runs; `newest` the newest of them); on another branch
// it is main's at the merge base, said so.
std::string baseline_words(analysis::Baseline against, std::size_t runs, const std::optional<VerdictBaseline>& base,
                           const std::string& newest) {
  const std::string n = std::to_string(runs), to = newest.empty() ? "" : ", to run " + newest;
  const std::string level = against == analysis::Baseline::Level ? "its level (median of " + n + " runs" + to + ")"
                            : runs == 1 ? "the previous run" + (newest.empty() ? "" : " (" + newest + ")")
                                        : "the previous " + n + " runs (median" + to + ")";
  return base ? merge_base_words(*base) + ": " + level : level;
}

// What the explanation compares with: a run of the series before this one, and what differs between them.
struct Comparison {
  std::optional<RunInfo> baseline;
  RunDifference difference;
};
Comparison compare_runs(sql::Conn& c, std::int64_t sid, const std::string& benchmark, std::optional<std::int64_t> before_pk,
                        const RunInfo& after) {
  Comparison out;
  if (!before_pk) return out;
  out.baseline = load_run(c, *before_pk);
  out.difference = what_changed(c, sid, split_name(benchmark).kernel(), *out.baseline, after);
  return out;
}

// "changed since run r41: SPIR-V de183201 -> a1cc297d, CS Register Count 23 -> 25", or what stayed the same.
// Where the SPIR-V was not recorded the commit stands for the code.
std::string evidence_line(const Comparison& cmp, const RunInfo& after) {
  if (!cmp.baseline) return "no earlier run of this benchmark to compare with";
  const RunDifference& d = cmp.difference;
  const bool spirv_unknown = std::find(d.unknown.begin(), d.unknown.end(), "SPIR-V") != d.unknown.end();
  std::vector<std::string> changed = d.changed;
  if (spirv_unknown && cmp.baseline->commit != after.commit)
    changed.insert(changed.begin(), "commit " + cmp.baseline->commit.substr(0, 12) + " -> " + after.commit.substr(0, 12));
  std::string line;
  if (!changed.empty()) {
    line = "changed since run " + cmp.baseline->key + ": ";
    for (std::size_t i = 0; i < changed.size(); ++i) line += (i ? ", " : "") + changed[i];
    if (!d.same.empty()) line += "; same " + d.same;
  } else {
    line = "nothing recorded changed since run " + cmp.baseline->key + (d.same.empty() ? "" : " (same " + d.same + ")");
    if (!spirv_unknown) line += ": not the kernel's code; the GPU, its clocks or the runner's load";
  }
  if (!d.unknown.empty()) {
    line += "; not recorded on both runs: ";
    for (std::size_t i = 0; i < d.unknown.size(); ++i) line += (i ? ", " : "") + d.unknown[i];
  }
  return line;
}

void fill_comparison(Explanation& e, const Comparison& cmp, const RunInfo& after) {
  e.evidence = evidence_line(cmp, after);
  e.changed = cmp.difference.changed;
  if (!cmp.baseline) return;
  e.baseline_run = cmp.baseline->key;
  if (cmp.baseline->commit != after.commit) {
    e.good_commit = cmp.baseline->commit;
    e.bad_commit = after.commit;
  }
}

double num(const std::optional<double>& v) { return v.value_or(NAN); }

Explanation from_alert(sql::Conn& c, const Alert& a, const std::string& finding, bool failing) {
  Explanation e;
  e.benchmark = a.benchmark;
  e.series_id = a.series_id;
  e.finding = finding;
  e.failing = failing;
  e.alert_id = a.id;
  e.before_ns = num(a.before_ns);
  e.after_ns = num(a.after_ns);
  e.change_pct = num(a.delta_pct);
  e.floor_pct = num(a.floor_pct);
  e.run_id = a.run_id;
  e.against = "its level before run " + a.run_id + " (alert " + std::to_string(a.id) + ")";
  const std::string summary = a.attribution ? a.attribution->summary : "";
  const std::string what = finding == "acknowledged" ? "acknowledged regression " : "regression ";
  e.headline = what + pct_text(e.change_pct) + " (" + time_text(e.before_ns) + " -> " + time_text(e.after_ns) + ") since run " +
               a.run_id + ", cause " + a.cause + (summary.empty() ? "" : ": " + summary) +
               (finding == "unconfirmed" ? "; not failing until more runs confirm it" : "");
  const auto after_pk = run_pk_of(c, a.run_id);
  if (!after_pk) return e;
  const RunInfo after = load_run(c, *after_pk);
  const auto before_pk = a.prev_run_id ? run_pk_of(c, *a.prev_run_id) : previous_main_run(c, a.series_id, after.started_ms, after.id);
  fill_comparison(e, compare_runs(c, a.series_id, a.benchmark, before_pk, after), after);
  return e;
}

}  // namespace

std::vector<Explanation> explain_verdict(sql::Conn& c, const JudgedRun& run, const Verdict& v) {
  std::vector<Explanation> out;
  const RunInfo now = load_run(c, run.pk);
  // What this run is compared with: main's run at the merge base where the branch has one with the series, else
  // the series' newest main run before this one.
  const auto merge_base_pk = v.baseline && v.baseline->run_id ? run_pk_of(c, *v.baseline->run_id) : std::nullopt;
  const auto baseline_of = [&](std::int64_t sid) {
    if (merge_base_pk && has_point(c, sid, *merge_base_pk)) return merge_base_pk;
    return previous_main_run(c, sid, run.started_ms, run.pk);
  };
  const auto here = [&](const std::string& benchmark, std::int64_t sid, const std::string& finding, bool failing) {
    Explanation e;
    e.benchmark = benchmark;
    e.series_id = sid;
    e.finding = finding;
    e.failing = failing;
    e.run_id = now.key;
    const Comparison cmp = compare_runs(c, sid, benchmark, baseline_of(sid), now);
    fill_comparison(e, cmp, now);
    return e;
  };
  for (const auto& f : v.correctness) {
    Explanation e = here(f.benchmark, f.series_id, detect::to_string(f.kind), true);
    e.against = "the CPU reference's error bound";
    e.headline = e.finding + ": " + f.error_message;
    out.push_back(std::move(e));
  }
  for (const auto& a : v.regressions) out.push_back(from_alert(c, a, "regression", true));
  for (const auto& s : v.slowdowns) {
    Explanation e = here(s.benchmark, s.series_id, "slowdown", true);
    e.before_ns = s.baseline_ns;
    e.after_ns = s.value_ns;
    e.change_pct = s.delta_pct;
    e.floor_pct = s.floor_pct;
    e.against = baseline_words(s.against, s.baseline_runs, v.baseline, e.baseline_run);
    e.headline = "slowdown " + ratio_text(s.value_ns / s.baseline_ns) + " (" + time_text(s.baseline_ns) + " -> " +
                 time_text(s.value_ns) + ") against " + e.against + ", past the gate's floor " + pct_text(s.floor_pct) +
                 " (run-to-run noise " + format_number("%.2f%%", s.noise_pct) + ")";
    out.push_back(std::move(e));
  }
  for (const auto& s : v.suspects) {
    Explanation e = here(s.benchmark, s.series_id, "suspect", false);
    e.before_ns = s.level_ns;
    e.after_ns = s.value_ns;
    e.change_pct = s.delta_pct;
    e.against = baseline_words(s.against, s.baseline_runs, v.baseline, e.baseline_run);
    // Past its own noise (the suspect's threshold), not past the single-run gate's floor: both said, so a large
    // suspect reads as what it is (a floor still wide on a young history), not as a contradiction.
    e.headline = "suspect " + pct_text(s.delta_pct) + " (" + time_text(s.level_ns) + " -> " + time_text(s.value_ns) +
                 ") against " + e.against + ": past its noise (threshold " + pct_text(s.floor_pct) + ", z " +
                 format_number("%.1f", s.z) + ")" +
                 (std::isfinite(s.gate_floor_pct) ? ", under the gate's floor " + pct_text(s.gate_floor_pct) + " for one run" : "") +
                 "; not a failure until later runs confirm it";
    e.floor_pct = std::isfinite(s.gate_floor_pct) ? s.gate_floor_pct : s.floor_pct;
    out.push_back(std::move(e));
  }
  for (const auto& a : v.unconfirmed_regressions) out.push_back(from_alert(c, a, "unconfirmed", false));
  for (const auto& a : v.acknowledged_regressions) out.push_back(from_alert(c, a, "acknowledged", false));
  return out;
}

namespace {
// As the dashboard's buildHash encodes a path part or a query value (encodeURIComponent, URLSearchParams): only
// the unreserved characters stay.
std::string uri_component(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char ch : s) {
    if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += hex[ch >> 4];
      out += hex[ch & 15];
    }
  }
  return out;
}
}  // namespace

NextStep next_step(const Explanation& e, const std::string& run_id, const std::string& base) {
  NextStep n;
  n.series_url = contract::dashboard_page(base, "series/" + std::to_string(e.series_id));
  if (!e.baseline_run.empty())
    n.compare_url = contract::dashboard_page(base, "compare?base=" + uri_component(e.baseline_run) + "&contender=" + uri_component(e.run_id));
  if (e.alert_id) n.alert_url = contract::dashboard_page(base, "alerts?id=" + std::to_string(*e.alert_id));
  const NameParts parts = split_name(e.benchmark);
  n.reproduce = reproduce_command({e.benchmark});
  const bool timed = std::isfinite(e.before_ns) && std::isfinite(e.after_ns);
  if (timed && !e.good_commit.empty() && parts.has_config)
    n.bisect = "ci/bisect.py --server " + base + " --run " + run_id + " --benchmark '" + e.benchmark + "'";
  return n;
}

std::string reproduce_command(const std::vector<std::string>& benchmarks) {
  std::vector<std::string> kernels, sizes;
  const auto add = [](std::vector<std::string>& list, const std::string& x) {
    if (std::find(list.begin(), list.end(), x) == list.end()) list.push_back(x);
  };
  for (const auto& b : benchmarks) {
    const NameParts parts = split_name(b);
    if (!parts.has_config) continue;
    add(kernels, parts.kernel());
    add(sizes, parts.config.substr(0, parts.config.find('/')));
  }
  if (kernels.empty()) return "";
  std::string filter, size_list;
  for (const auto& k : kernels) filter += (filter.empty() ? "" : "|") + k;
  for (const auto& z : sizes) size_list += (size_list.empty() ? "" : ",") + z;
  return "shaderwatch-bench --filter '^" + (kernels.size() > 1 ? "(" + filter + ")" : filter) + "$' --sizes " + size_list;
}

}  // namespace shaderwatch
