#include "detection/gate_config.h"

#include <fnmatch.h>

#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/quantity_text.h"

namespace shaderwatch::analysis {

namespace {

// Each parameter a setting may name: where it lives and the values that keep the gate meaningful.
struct Parameter {
  const char* name;
  double min, max;
  bool whole;  // a count
  void (*set)(GateParams&, double);
};

template <auto Member>
void set_double(GateParams& g, double v) { g.*Member = v; }
template <auto Member>
void set_count(GateParams& g, double v) { g.*Member = static_cast<std::size_t>(v); }
template <auto Member>
void set_model_double(GateParams& g, double v) { g.model.*Member = v; }
template <auto Member>
void set_model_count(GateParams& g, double v) { g.model.*Member = static_cast<std::size_t>(v); }

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> list = {
      {"min_effect", 0, 100, false, set_double<&GateParams::min_effect>},
      {"z", 1, 50, false, set_double<&GateParams::z>},
      {"prior_noise_rel", 0, 10, false, set_double<&GateParams::prior_noise_rel>},
      {"prior_noise_ns", 0, 1e9, false, set_double<&GateParams::prior_noise_ns>},
      {"swing_power", 1, 10, false, set_double<&GateParams::swing_power>},
      {"swing_runs", 2, 1000, true, set_count<&GateParams::swing_runs>},
      {"min_swing_series_runs", 0, 1e7, true, set_count<&GateParams::min_swing_series_runs>},
      {"alert_z", 1, 50, false, set_double<&GateParams::alert_z>},
      {"model.false_fail_target", 1e-9, 0.5, false, set_model_double<&detect::NoiseModelParams::false_fail_target>},
      {"model.suspect_rate", 1e-9, 0.5, false, set_model_double<&detect::NoiseModelParams::suspect_rate>},
      {"model.min_changes", 1, 1e7, true, set_model_count<&detect::NoiseModelParams::min_changes>},
      {"model.min_effect", 0, 100, false, set_model_double<&detect::NoiseModelParams::min_effect>},
      {"model.run_outlier_ratio", 1, 1e3, false, set_model_double<&detect::NoiseModelParams::run_outlier_ratio>},
  };
  return list;
}

const Parameter* find_parameter(std::string_view name) {
  for (const auto& p : parameters())
    if (name == p.name) return &p;
  return nullptr;
}

std::string number_text(double v) { return format_number("%g", v); }

std::vector<GateSetting> parse_settings(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + ": must be an object of parameter: number");
  std::vector<GateSetting> settings;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string field = where + "." + it.key();
    const Parameter* p = find_parameter(it.key());
    if (!p) throw std::invalid_argument(field + ": no such gate parameter (one of:\n" + gate_parameter_list() + ")");
    if (!it->is_number()) throw std::invalid_argument(field + ": must be a number");
    const double v = it->get<double>();
    if (!(v >= p->min && v <= p->max) || (p->whole && v != std::floor(v)))
      throw std::invalid_argument(field + ": " + number_text(v) + " is not " + (p->whole ? "a whole number " : "") +
                                  "from " + number_text(p->min) + " to " + number_text(p->max));
    settings.push_back({it.key(), v});
  }
  return settings;
}

std::string pattern(const nlohmann::json& o, const char* key, const std::string& where) {
  if (!o.contains(key)) return "*";
  const auto& v = o[key];
  if (!v.is_string() || v.get<std::string>().empty())
    throw std::invalid_argument(where + "." + key + ": must be a non-empty shell pattern (\"release/*\", \"*H100*\")");
  return v.get<std::string>();
}

bool matches(const std::string& glob, std::string_view text) {
  return fnmatch(glob.c_str(), std::string(text).c_str(), 0) == 0;
}

void apply(GateParams& g, const std::vector<GateSetting>& settings) {
  for (const auto& s : settings) find_parameter(s.name)->set(g, s.value);
}

}  // namespace

std::string gate_parameter_list() {
  std::string out;
  for (const auto& p : parameters())
    out += std::string("  ") + p.name + " (" + (p.whole ? "whole, " : "") + number_text(p.min) + "-" + number_text(p.max) + ")\n";
  return out;
}

GateConfig parse_gate_config(std::string_view json_text) {
  const auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw std::invalid_argument("not a JSON object");
  GateConfig config;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "defaults" && it.key() != "overrides")
      throw std::invalid_argument(it.key() + ": unknown key (expected \"defaults\" and \"overrides\")");
  if (j.contains("defaults")) config.defaults = parse_settings(j["defaults"], "defaults");
  if (!j.contains("overrides")) return config;
  if (!j["overrides"].is_array()) throw std::invalid_argument("overrides: must be an array");
  for (std::size_t i = 0; i < j["overrides"].size(); ++i) {
    const auto& o = j["overrides"][i];
    const std::string where = "overrides[" + std::to_string(i) + "]";
    if (!o.is_object()) throw std::invalid_argument(where + ": must be an object {branch, gpu, set}");
    for (auto it = o.begin(); it != o.end(); ++it)
      if (it.key() != "branch" && it.key() != "gpu" && it.key() != "set")
        throw std::invalid_argument(where + "." + it.key() + ": unknown key (expected branch, gpu and set)");
    if (!o.contains("set")) throw std::invalid_argument(where + ".set: missing (the parameters it sets)");
    config.overrides.push_back({pattern(o, "branch", where), pattern(o, "gpu", where), parse_settings(o["set"], where + ".set")});
  }
  return config;
}

ResolvedGate resolve_gate(const GateParams& base, const GateConfig& config, std::string_view branch, std::string_view gpu) {
  ResolvedGate r{base, ""};
  apply(r.params, config.defaults);
  for (const auto& o : config.overrides) {
    if (!matches(o.branch, branch) || !matches(o.gpu, gpu)) continue;
    apply(r.params, o.settings);
    std::string set;
    for (const auto& s : o.settings) set += (set.empty() ? "" : ", ") + s.name + " " + number_text(s.value);
    r.note += std::string(r.note.empty() ? "" : "; ") + "gate for branch '" + o.branch + "', GPU '" + o.gpu + "': " + set;
  }
  return r;
}

}  // namespace shaderwatch::analysis
