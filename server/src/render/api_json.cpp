#include "render/api_json.h"

#include <optional>

using nlohmann::json;

namespace shaderwatch {

namespace {

// An optional field: its value, or null where absent.
template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

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
       {"attribution", a.attribution},
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
       {"errors", p.errors}, {"error_message", p.error_message}, {"label", p.label}};
  if (!p.counters) return;
  const BenchmarkCounters& k = *p.counters;
  j["p25_ns"] = number_or_null(k.p25_ns);
  j["p75_ns"] = number_or_null(k.p75_ns);
  j["pct_of_roofline"] = number_or_null(k.pct_of_roofline);
  j["pct_of_copy_peak"] = number_or_null(k.pct_of_copy_peak);
  j["err_bound_ratio"] = number_or_null(k.err_bound_ratio);
  j["outcome"] = outcome_name(k.outcome);
}

void to_json(json& j, const NotMeasuredEntry& e) {
  j = {{"benchmark", e.benchmark}, {"outcome", outcome_name(e.outcome)}, {"error_message", e.error_message}};
}

void to_json(json& j, const RunDetail& r) {
  j = {{"run", r.run}, {"points", r.points}, {"not_measured", r.not_measured}};
}

void to_json(json& j, const ResultRow& r) {
  j = {{"index", r.index}, {"benchmark", r.benchmark}, {"run_type", r.run_type},
       {"aggregate_name", or_null(r.aggregate_name)}, {"repetition_index", r.repetition_index},
       {"repetitions", r.repetitions}, {"threads", r.threads}, {"iterations", r.iterations},
       {"real_ns", or_null(r.real_ns)}, {"cpu_ns", or_null(r.cpu_ns)}, {"time_unit", r.time_unit},
       {"label", r.label}, {"error_occurred", r.error_occurred}, {"error_message", r.error_message},
       {"outcome", outcome_name(r.outcome)}, {"counters", r.counters}};
}

void to_json(json& j, const RunResults& r) {
  j = {{"run_id", r.run_id}, {"results", r.results}, {"limit", r.limit}, {"offset", r.offset},
       {"next_offset", or_null(r.next_offset)}};
}

void to_json(json& j, const IngestAnswer& a) { j = {{"run", a.run}, {"alerts", a.alerts}}; }

void to_json(json& j, const VerdictBaseline& b) {
  j = {{"branch", b.branch}, {"merge_base", or_null(b.merge_base)}, {"run_id", or_null(b.run_id)}};
}

void to_json(json& j, const CorrectnessEntry& e) {
  j = {{"benchmark", e.benchmark}, {"series_id", e.series_id}, {"kind", detect::to_string(e.kind)},
       {"error_message", e.error_message}};
}

void to_json(json& j, const SuspectEntry& e) {
  j = {{"benchmark", e.benchmark}, {"series_id", e.series_id}, {"level_ns", e.level_ns}, {"value_ns", e.value_ns},
       {"delta_pct", e.delta_pct}, {"floor_pct", e.floor_pct}, {"z", e.z}};
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
       {"series_runs", n.series_runs}, {"single_run_gate", n.gated}, {"line", c.line}};
}

void to_json(json& j, const Verdict& v) {
  j = {{"run_id", v.run_id}, {"branch", v.branch}, {"baseline", v.baseline ? json(*v.baseline) : json(nullptr)},
       {"verdict", v.fail ? "fail" : "pass"}, {"correctness", v.correctness}, {"regressions", v.regressions},
       {"slowdowns", v.slowdowns}, {"acknowledged_regressions", v.acknowledged_regressions},
       {"unconfirmed_regressions", v.unconfirmed_regressions}, {"suspects", v.suspects}, {"skipped", v.skipped},
       {"coverage", v.coverage}};
}

}  // namespace shaderwatch
