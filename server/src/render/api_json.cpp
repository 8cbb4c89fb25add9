#include "render/api_json.h"

#include "queries/verdict_explanation.h"

#include <cmath>
#include <optional>

using nlohmann::json;

namespace shaderwatch {

namespace {

// An optional field: its value, or null where absent.
template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// A number, or null where it is not finite (NaN: none known).
json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

}  // namespace

void to_json(json& j, const GpuRef& g) {
  j = {{"id", g.id}, {"vendor_id", g.vendor_id}, {"device_id", g.device_id}, {"name", g.name},
       {"device_type", g.device_type}};
}

void to_json(json& j, const Alert& a) {
  j = {{"id", a.id},
       {"series_id", a.series_id},
       {"benchmark", a.benchmark},
       {"kernel", a.kernel},
       {"config", a.config},
       {"gpu", a.gpu},
       {"run_id", a.run_id},
       {"started_at", a.started_at},
       {"prev_run_id", or_null(a.prev_run_id)},
       {"commit", a.commit},
       {"driver_version", a.driver_version},
       {"driver", a.driver},
       {"kind", a.kind},
       {"severity", a.severity},
       {"state", a.state},
       {"before_ns", or_null(a.before_ns)},
       {"after_ns", or_null(a.after_ns)},
       {"delta_pct", or_null(a.delta_pct)},
       {"noise_pct", or_null(a.noise_pct)},
       {"floor_pct", or_null(a.floor_pct)},
       {"score", or_null(a.score)},
       {"p_value", or_null(a.p_value)},
       {"n_before", or_null(a.n_before)},
       {"n_after", or_null(a.n_after)},
       {"cause", a.cause},
       {"attribution", nlohmann::json::parse(a.attribution_document, nullptr, false)},  // discarded where unparsable
       {"raised_by_run", a.raised_by_run},
       {"created_at", a.created_at},
       {"updated_at", a.updated_at},
       {"state_by", or_null(a.state_by)},
       {"note", or_null(a.note)},
       {"error_message", or_null(a.error_message)}};
}

void to_json(json& j, const AlertPage& p) {
  j = {{"alerts", p.alerts}, {"total", p.total}, {"limit", p.limit}, {"offset", p.offset},
       {"next_offset", or_null(p.next_offset)}};
}

void to_json(json& j, const GpuEntry& e) {
  j = e.gpu;
  j["runs"] = e.runs;
  j["first_seen"] = e.first_seen;
  j["last_seen"] = e.last_seen;
}

void to_json(json& j, const GpuList& l) { j = {{"gpus", l.gpus}}; }

void to_json(json& j, const DriverEntry& e) {
  j = {{"gpu_id", e.gpu_id}, {"driver_name", e.driver_name}, {"driver_version", e.driver_version},
       {"driver_info", e.driver_info}, {"api_version", e.api_version}, {"runs", e.runs},
       {"first_seen", e.first_seen}, {"last_seen", e.last_seen}};
}

void to_json(json& j, const DriverList& l) { j = {{"drivers", l.drivers}}; }

void to_json(json& j, const BenchmarkEntry& e) {
  j = {{"id", e.id}, {"name", e.name}, {"family", e.family}, {"variant", e.variant}, {"config", e.config}};
}

void to_json(json& j, const BenchmarkPage& p) {
  j = {{"benchmarks", p.benchmarks}, {"limit", p.limit}, {"offset", p.offset}};
}

void to_json(json& j, const SeriesEntry& e) { j = {{"id", e.id}, {"benchmark", e.benchmark}, {"gpu", e.gpu}}; }

void to_json(json& j, const SeriesPage& p) { j = {{"series", p.series}, {"limit", p.limit}, {"offset", p.offset}}; }

void to_json(json& j, const SeriesPoint& p) {
  j = {{"run_id", p.run_id}, {"started_at", p.started_at}, {"commit", p.commit}, {"branch", p.branch},
       {"runner", p.runner}, {"driver_name", p.driver_name}, {"driver_version", p.driver_version},
       {"api_version", p.api_version}, {"harness_revision", p.harness_revision}, {"value_ns", or_null(p.value_ns)},
       {"min_ns", or_null(p.min_ns)}, {"max_ns", or_null(p.max_ns)}, {"repetitions", p.repetitions},
       {"errors", p.errors}, {"error_message", p.error_message}, {"driver_info", p.driver_info},
       {"driver_uuid", p.driver_uuid}, {"driver", p.driver}, {"p25_ns", number_or_null(p.p25_ns)},
       {"p75_ns", number_or_null(p.p75_ns)}, {"spirv", p.spirv}, {"input", p.input},
       {"compiled_id", p.compiled_id ? json(std::to_string(p.compiled_id)) : json(nullptr)}};
}

void to_json(json& j, const Compilation& c) {
  json statistics = json::array();
  for (const auto& s : c.statistics)
    statistics.push_back({{"name", s.name}, {"executable", s.executable}, {"statistic", s.statistic}, {"value", s.value}});
  j = {{"spirv", c.spirv}, {"input", c.input}, {"statistics", statistics}};
}

void to_json(json& j, const CovariateChange& c) {
  j = {{"index", c.index}, {"run_id", c.run_id}, {"field", c.field}, {"before", c.before}, {"after", c.after}};
}

void to_json(json& j, const Series& s) {
  j = {{"id", s.id}, {"benchmark", s.benchmark}, {"family", s.family}, {"variant", s.variant}, {"config", s.config},
       {"gpu", s.gpu}, {"points", s.points}, {"covariate_changes", s.covariate_changes},
       {"change_points", s.change_points}, {"compiled", json::object()}};
  for (const auto& [id, c] : s.compiled) j["compiled"][std::to_string(id)] = c;
}

void to_json(json& j, const CompareRow& r) {
  const analysis::CompareResult& c = r.result;
  j = {{"benchmark", r.benchmark}, {"base_ns", std::isnan(r.base_ns) ? json(nullptr) : json(r.base_ns)},
       {"contender_ns", std::isnan(r.contender_ns) ? json(nullptr) : json(r.contender_ns)},
       {"base_repetitions", r.base_repetitions}, {"contender_repetitions", r.contender_repetitions},
       {"verdict", analysis::to_string(c.verdict)}, {"delta_pct", or_null(c.delta_pct)},
       {"p_value", or_null(c.p_value)}};
  if (c.verdict == analysis::CompareVerdict::Error) return;
  j["reliable"] = c.reliable;
  if (!c.floor_pct) return;
  j["spread_pct"] = or_null(c.spread_pct);
  j["floor_pct"] = *c.floor_pct;
}

void to_json(json& j, const Comparison& c) {
  j = {{"base", c.base}, {"contender", c.contender}, {"alpha", c.params.alpha},
       {"min_delta_pct", c.params.min_delta_pct}, {"min_delta_ns", c.params.min_delta_ns},
       {"noise_floor", c.params.noise_floor}, {"benchmarks", c.benchmarks}, {"only_in_base", c.only_in_base},
       {"only_in_contender", c.only_in_contender}, {"geomean_delta_pct", or_null(c.geomean_delta_pct)}};
}

void to_json(json& j, const DriverRef& d) {
  j = {{"id", d.id}, {"name", d.name}, {"info", d.info}, {"version", d.version}, {"uuid", d.uuid}};
}

void to_json(json& j, const RunSummary& r) {
  j = {{"id", r.id},
       {"commit", r.commit},
       {"branch", r.branch},
       {"runner", r.runner},
       {"job_url", r.job_url},
       {"started_at", r.started_at},
       {"received_at", r.received_at},
       {"driver", r.driver},
       {"api_version", r.api_version},
       {"harness_revision", r.harness_revision},
       {"device_uuid", r.device_uuid},
       {"subgroup_size", r.subgroup_size},
       {"host_name", r.host_name},
       {"results", r.results},
       {"gpu", r.gpu},
       {"benchmarks", r.benchmarks},
       {"failing_benchmarks", r.failing_benchmarks},
       {"gpu_benchmarks", r.gpu_benchmarks},
       {"posted_by", r.posted_by}};
}

void to_json(json& j, const RunPage& p) {
  j = {{"runs", p.runs}, {"limit", p.limit}, {"offset", p.offset}, {"next_offset", or_null(p.next_offset)}};
}

void to_json(json& j, const RunPointEntry& p) {
  j = {{"series_id", p.series_id}, {"benchmark", p.benchmark}, {"value_ns", or_null(p.value_ns)},
       {"min_ns", or_null(p.min_ns)}, {"max_ns", or_null(p.max_ns)}, {"repetitions", p.repetitions},
       {"errors", p.errors}, {"error_message", p.error_message}, {"label", p.label},
       {"limit", p.limit.empty() ? json(nullptr) : json(p.limit)}};
  if (!p.counters) return;
  const BenchmarkCounters& k = *p.counters;
  j["p25_ns"] = number_or_null(k.p25_ns);
  j["p75_ns"] = number_or_null(k.p75_ns);
  j["pct_of_roofline"] = number_or_null(k.pct_of_roofline);
  j["pct_of_copy_peak"] = number_or_null(k.pct_of_copy_peak);
  j["err_bound_ratio"] = number_or_null(k.err_bound_ratio);
  j["outcome"] = contract::row_status_word(k.outcome);
}

void to_json(json& j, const NotMeasuredEntry& e) {
  j = {{"benchmark", e.benchmark}, {"outcome", contract::row_status_word(e.outcome)}, {"error_message", e.error_message}};
}

void to_json(json& j, const RunDetail& r) {
  j = {{"run", r.run}, {"points", r.points}, {"not_measured", r.not_measured}, {"compiled", json::array()}};
  for (const auto& k : r.compiled) {
    json entry = k.compiled;
    entry["kernel"] = k.kernel;
    j["compiled"].push_back(std::move(entry));
  }
}

void to_json(json& j, const ResultRow& r) {
  j = {{"index", r.index}, {"benchmark", r.benchmark}, {"run_type", r.run_type},
       {"aggregate_name", or_null(r.aggregate_name)}, {"repetition_index", r.repetition_index},
       {"repetitions", r.repetitions}, {"threads", r.threads}, {"iterations", r.iterations},
       {"real_ns", or_null(r.real_ns)}, {"cpu_ns", or_null(r.cpu_ns)}, {"time_unit", r.time_unit},
       {"label", r.label}, {"error_occurred", r.error_occurred}, {"error_message", r.error_message},
       {"outcome", contract::row_status_word(r.outcome)}, {"counters", r.counters}};
}

void to_json(json& j, const RunResults& r) {
  j = {{"run_id", r.run_id}, {"results", r.results}, {"limit", r.limit}, {"offset", r.offset},
       {"next_offset", or_null(r.next_offset)}};
  // Only where pruning took some: the answer of a run with all its rows is as it always was.
  if (r.pruned_benchmarks) j["pruned_benchmarks"] = r.pruned_benchmarks;
}

void to_json(json& j, const IngestAnswer& a) { j = {{"run", a.run}, {"alerts", a.alerts}}; }

void to_json(json& j, const RankedVariant& v) {
  j = {{"rank", v.rank}, {"variant", v.variant}, {"value_ns", v.value_ns}, {"noise_rel", number_or_null(v.noise_rel)},
       {"operation", v.operation}, {"pct_of_roofline", number_or_null(v.pct_of_roofline)},
       {"pct_of_copy_peak", number_or_null(v.pct_of_copy_peak)}};
}

void to_json(json& j, const GpuRanking& g) { j = {{"gpu", g.gpu}, {"run_id", g.run_id}, {"ranking", g.ranking}}; }

void to_json(json& j, const RankingFlip& f) {
  j = {{"operation", f.operation}, {"gpu_a", f.gpu_a}, {"gpu_b", f.gpu_b}, {"faster_on_a", f.faster_on_a},
       {"faster_on_b", f.faster_on_b}, {"gap_on_a_pct", f.gap_on_a_pct}, {"gap_on_b_pct", f.gap_on_b_pct}};
}

void to_json(json& j, const GpuTime& t) { j = {{"gpu", t.gpu}, {"value_ns", t.value_ns}}; }

void to_json(json& j, const VariantGpuOrder& o) {
  j = {{"variant", o.variant}, {"fastest_first", o.fastest_first}, {"fastest", or_null(o.fastest)}, {"tie", o.tie}};
}

void to_json(json& j, const RankingGroup& g) {
  j = {{"family", g.family}, {"config", g.config}, {"by_gpu", g.by_gpu}, {"flips", g.flips}, {"gpu_order", g.gpu_order}};
}

void to_json(json& j, const Rankings& r) { j = {{"commit", r.commit}, {"groups", r.groups}}; }

void to_json(json& j, const Vocabulary& v) {
  j = {{"alert_states", v.alert_states},
       {"open_alert_states", v.open_alert_states},
       {"alert_kinds", v.alert_kinds},
       {"correctness_alert_kinds", v.correctness_alert_kinds},
       {"level_alert_kinds", v.level_alert_kinds}, {"spread_alert_kinds", v.spread_alert_kinds},
       {"alert_kind_tones", v.alert_kind_tones},
       {"causes", v.causes},
       {"outcomes", v.outcomes},
       {"main_branch", v.main_branch}};
}

void to_json(json& j, const VerdictBrief& b) {
  j = {{"verdict", b.fail ? "fail" : "pass"}, {"correctness", b.correctness}, {"regressions", b.regressions},
       {"slowdowns", b.slowdowns}, {"history", b.history}, {"suspects", b.suspects}, {"skipped", b.skipped},
       {"failing", b.failing}, {"failing_total", b.failing_total}};
}

void to_json(json& j, const RunWithVerdict& r) {
  j = r.run;
  j["verdict"] = r.verdict;
}

void to_json(json& j, const DriverBuild& d) {
  j = {{"driver_name", d.driver_name}, {"driver_version", d.driver_version}, {"driver_info", d.driver_info},
       {"driver_uuid", d.driver_uuid}, {"driver", d.driver}, {"runs", d.runs}, {"first_seen", d.first_seen},
       {"last_seen", d.last_seen}};
}

void to_json(json& j, const GpuOverview& g) {
  j = {{"gpu", g.gpu}, {"runs", g.runs}, {"drivers", g.drivers},
       {"open_alerts", g.open_alerts.empty() ? json::object() : json(g.open_alerts)},
       {"last_run", g.last_run ? json(*g.last_run) : json(nullptr)}};
}

void to_json(json& j, const Overview& o) { j = {{"gpus", o.gpus}, {"latest_runs", o.latest_runs}}; }

void to_json(json& j, const CorrectnessColumn& c) {
  j = {{"run_id", c.run_id}, {"started_at", c.started_at}, {"driver_name", c.driver_name},
       {"driver_version", c.driver_version}, {"driver", c.driver}, {"gpu", c.gpu},
       {"benchmarks_from_older_runs", c.benchmarks_from_older_runs}};
}

void to_json(json& j, const CorrectnessCell& c) {
  j = {{"outcome", contract::row_status_word(c.outcome)}, {"message", c.message}, {"run_id", c.run_id},
       {"series_id", or_null(c.series_id)}};
}

void to_json(json& j, const CorrectnessRow& r) {
  json cells = json::array();
  for (const auto& c : r.cells) cells.push_back(c ? json(*c) : json(nullptr));
  j = {{"benchmark", r.benchmark}, {"cells", cells}};
}

void to_json(json& j, const CorrectnessMatrix& m) {
  j = {{"branch", m.branch}, {"columns", m.columns}, {"rows", m.rows},
       {"counts", m.counts.empty() ? json::object() : json(m.counts)}};
}

void to_json(json& j, const VerdictBaseline& b) {
  j = {{"branch", b.branch}, {"merge_base", or_null(b.merge_base)}, {"run_id", or_null(b.run_id)}};
}

void to_json(json& j, const CorrectnessEntry& e) {
  j = {{"benchmark", e.benchmark}, {"series_id", e.series_id}, {"kind", detect::to_string(e.kind)},
       {"error_message", e.error_message}};
}

void to_json(json& j, const SuspectEntry& e) {
  j = {{"benchmark", e.benchmark}, {"series_id", e.series_id}, {"level_ns", e.level_ns}, {"value_ns", e.value_ns},
       {"delta_pct", e.delta_pct}, {"floor_pct", e.floor_pct}, {"z", e.z}, {"gate_floor_pct", number_or_null(e.gate_floor_pct)},
       {"against", analysis::to_string(e.against)}, {"baseline_runs", e.baseline_runs}};
}

void to_json(json& j, const SlowdownEntry& e) {
  j = {{"benchmark", e.benchmark}, {"series_id", e.series_id}, {"against", analysis::to_string(e.against)},
       {"baseline_runs", e.baseline_runs}, {"baseline_ns", e.baseline_ns}, {"value_ns", e.value_ns},
       {"delta_pct", e.delta_pct}, {"floor_pct", e.floor_pct}, {"noise_pct", e.noise_pct}};
}

void to_json(json& j, const SkippedEntry& e) { j = {{"benchmark", e.benchmark}, {"reason", e.reason}}; }

void to_json(json& j, const VerdictCoverage& c) {
  const analysis::Coverage& n = c.counts;
  j = {{"first_runs", n.first_runs}, {"previous_runs", n.previous_runs}, {"level", n.level},
       {"change_points", n.change_points}, {"not_timed", n.not_timed}, {"timings_gated", c.timings_gated},
       {"history_min", n.history_min}, {"history_max", n.history_max}, {"swing_pct", c.swing_pct},
       {"series_runs", n.series_runs}, {"single_run_gate", n.gated},
       {"noise_model", n.modeled ? json{{"changes", n.model_changes}, {"left_out", n.model_left_out},
                                        {"excluded_series", n.model_excluded}, {"tail", n.model_tail},
                                        {"run_spread", n.run_spread}, {"floor_min_pct", 100 * n.floor_min},
                                        {"floor_median_pct", 100 * n.floor_median}, {"floor_max_pct", 100 * n.floor_max},
                                        {"held_as_before", n.held_as_before}}
                                  : json(nullptr)},
       {"line", c.line}};
  if (!c.gate.empty()) j["gate"] = c.gate;  // only where the configuration changed something: answers stay as they were
}

void to_json(json& j, const NoiseNote& n) {
  j = {{"benchmarks", n.benchmarks}, {"ratio", n.ratio}, {"since_run", n.since_run}, {"cause", n.cause},
       {"line", n.line}};
}

void to_json(json& j, const Explanation& e) {
  j = {{"benchmark", e.benchmark}, {"series_id", e.series_id}, {"finding", e.finding}, {"failing", e.failing},
       {"before_ns", number_or_null(e.before_ns)}, {"after_ns", number_or_null(e.after_ns)},
       {"change_pct", number_or_null(e.change_pct)}, {"floor_pct", number_or_null(e.floor_pct)}, {"against", e.against},
       {"headline", e.headline}, {"evidence", e.evidence}, {"changed", e.changed}, {"run_id", e.run_id},
       {"baseline_run", e.baseline_run.empty() ? json(nullptr) : json(e.baseline_run)},
       {"good_commit", e.good_commit.empty() ? json(nullptr) : json(e.good_commit)},
       {"bad_commit", e.bad_commit.empty() ? json(nullptr) : json(e.bad_commit)},
       {"alert_id", e.alert_id ? json(*e.alert_id) : json(nullptr)}};
}

json verdict_json(const Verdict& v, const std::string& dashboard) {
  json j = v;
  auto& list = j["explanations"];
  for (std::size_t i = 0; i < v.explanations.size(); ++i) {
    const NextStep n = next_step(v.explanations[i], v.run_id, dashboard);
    const auto or_none = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
    list[i]["next"] = {{"series_url", n.series_url}, {"compare_url", or_none(n.compare_url)},
                       {"alert_url", or_none(n.alert_url)}, {"reproduce", or_none(n.reproduce)}, {"bisect", or_none(n.bisect)}};
  }
  return j;
}

void to_json(json& j, const Verdict& v) {
  j = {{"run_id", v.run_id}, {"branch", v.branch}, {"baseline", v.baseline ? json(*v.baseline) : json(nullptr)},
       {"verdict", v.fail ? "fail" : "pass"}, {"correctness", v.correctness}, {"regressions", v.regressions},
       {"slowdowns", v.slowdowns}, {"acknowledged_regressions", v.acknowledged_regressions},
       {"unconfirmed_regressions", v.unconfirmed_regressions}, {"suspects", v.suspects}, {"skipped", v.skipped},
       {"explanations", v.explanations}, {"coverage", v.coverage}, {"noise", v.noise ? json(*v.noise) : json(nullptr)}};
}

}  // namespace shaderwatch
