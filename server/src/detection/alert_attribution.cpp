#include "detection/alert_attribution.h"

#include <nlohmann/json.hpp>

namespace shaderwatch {

namespace {

using nlohmann::json;

json siblings_json(const SiblingSummary& s, const char* name_key) {
  json detail = json::array();
  for (const auto& d : s.detail) detail.push_back({{name_key, d.name}, {"stepped", d.stepped}, {"delta_pct", d.delta_pct}});
  return {{"checked", s.checked}, {"stepped", s.stepped}, {"detail", std::move(detail)}};
}

void add_findings(json& j, const AttributionFindings& f) {
  json compiled = {{"spirv_before", f.compiled.spirv_before}, {"spirv_after", f.compiled.spirv_after},
                   {"statistics_recorded", f.compiled.statistics_recorded}};
  if (f.compiled.statistics)
    compiled["statistics_changed"] = {{"before", f.compiled.statistics->first}, {"after", f.compiled.statistics->second}};
  if (f.compiled.input) compiled["input"] = {{"before", f.compiled.input->first}, {"after", f.compiled.input->second}};
  j["evidence_class"] = f.evidence_class ? json(*f.evidence_class) : json(nullptr);
  j["evidence"] = f.evidence;
  j["compiled"] = std::move(compiled);
  j["driver_changed"] = f.driver_changed;
  j["commit_changed"] = f.commit_changed;
  j["runner_changed"] = f.runner_changed;
  j["driver_before"] = f.driver_before;
  j["driver_after"] = f.driver_after;
  j["commit_before"] = f.commit_before;
  j["commit_after"] = f.commit_after;
  j["gpu_siblings"] = siblings_json(f.gpu_siblings, "gpu");
  j["kernel_siblings"] = siblings_json(f.kernel_siblings, "benchmark");
}

SiblingSummary siblings_of(const json& j, const char* name_key) {
  SiblingSummary s{j.value("checked", 0), j.value("stepped", 0), {}};
  for (const auto& d : j.value("detail", json::array()))
    s.detail.push_back({d.value(name_key, std::string()), d.value("stepped", false), d.value("delta_pct", 0.0)});
  return s;
}

std::optional<std::pair<std::string, std::string>> before_after(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return std::nullopt;
  return std::pair{it->value("before", std::string()), it->value("after", std::string())};
}

AttributionFindings findings_of(const json& j) {
  AttributionFindings f;
  if (const auto ec = j.find("evidence_class"); ec != j.end() && ec->is_string()) f.evidence_class = ec->get<std::string>();
  f.evidence = j.value("evidence", std::vector<std::string>{});
  const json compiled = j.value("compiled", json::object());
  f.compiled = {compiled.value("spirv_before", std::string()), compiled.value("spirv_after", std::string()),
                compiled.value("statistics_recorded", false), before_after(compiled, "statistics_changed"),
                before_after(compiled, "input")};
  f.driver_changed = j.value("driver_changed", false);
  f.commit_changed = j.value("commit_changed", false);
  f.runner_changed = j.value("runner_changed", false);
  f.driver_before = j.value("driver_before", std::string());
  f.driver_after = j.value("driver_after", std::string());
  f.commit_before = j.value("commit_before", std::string());
  f.commit_after = j.value("commit_after", std::string());
  f.gpu_siblings = siblings_of(j.value("gpu_siblings", json::object()), "gpu");
  f.kernel_siblings = siblings_of(j.value("kernel_siblings", json::object()), "benchmark");
  return f;
}

}  // namespace

std::string stored_text(const AlertAttribution& a) {
  json j = {{"cause", a.cause}, {"summary", a.summary}};
  if (a.findings) add_findings(j, *a.findings);
  if (a.trend) j["trend"] = {{"rate_pct_per_run", a.trend->rate_pct_per_run}, {"since_run", a.trend->since_run},
                             {"runs", a.trend->runs}};
  if (a.gate)
    j["gate"] = {{"run", a.gate->run},           {"against", a.gate->against},     {"runs", a.gate->runs},
                 {"baseline_ns", a.gate->baseline_ns}, {"value_ns", a.gate->value_ns}, {"delta_pct", a.gate->delta_pct},
                 {"floor_pct", a.gate->floor_pct}};
  if (a.noise)
    j["noise"] = {{"ratio", a.noise->ratio}, {"before_pct", a.noise->before_pct}, {"after_pct", a.noise->after_pct},
                  {"since_run", a.noise->since_run}};
  return j.dump();
}

std::optional<AlertAttribution> read_attribution(std::string_view stored) try {
  const json j = json::parse(stored, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  AlertAttribution a;
  a.cause = j.value("cause", std::string("neither"));
  a.summary = j.value("summary", std::string());
  if (j.contains("evidence")) a.findings = findings_of(j);  // a first run's failure has none
  if (const auto t = j.find("trend"); t != j.end() && t->is_object())
    a.trend = TrendMark{t->value("rate_pct_per_run", 0.0), t->value("since_run", std::string()),
                        t->value("runs", std::size_t{0})};
  if (const auto g = j.find("gate"); g != j.end() && g->is_object())
    a.gate = GateMark{g->value("run", std::string()), g->value("against", std::string()), g->value("runs", std::size_t{0}),
                      g->value("baseline_ns", 0.0), g->value("value_ns", 0.0), g->value("delta_pct", 0.0),
                      g->value("floor_pct", 0.0)};
  if (const auto n = j.find("noise"); n != j.end() && n->is_object())
    a.noise = NoiseMark{n->value("ratio", 1.0), n->value("before_pct", 0.0), n->value("after_pct", 0.0),
                        n->value("since_run", std::string())};
  return a;
} catch (const nlohmann::json::exception&) {  // a field of another type than detection writes
  return std::nullopt;
}

}  // namespace shaderwatch
