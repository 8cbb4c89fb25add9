// The single-run gate's parameters as data: the server's own (serve --gate-config FILE, else the built-in ones),
// and overrides for the runs of a branch pattern and a GPU pattern (a noisier GPU, a release branch that wants a
// lower floor). A verdict and the gate's alerts at ingest judge a run with the parameters resolved for its branch
// and GPU; the verdict's coverage line names what was overridden. Pure: JSON text in, parameters out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "detection/single_run_gate.h"

namespace shaderwatch::analysis {

// One setting of a gate parameter by name ("z", "model.min_effect"): settings apply in order.
struct GateSetting {
  std::string name;
  double value = 0;
};
struct GateOverride {
  std::string branch = "*", gpu = "*";  // shell patterns (fnmatch) of the run's branch and its GPU's name
  std::vector<GateSetting> settings;
};
struct GateConfig {
  std::vector<GateSetting> defaults;      // over the built-in parameters, for every run
  std::vector<GateOverride> overrides;    // in file order: each that matches a run applies over the ones before
};

// Every parameter a setting may name, with its range, as "name (from-to)" lines for --help and errors.
std::string gate_parameter_list();

// The file's text as a GateConfig: {"defaults": {"z": 5.5}, "overrides": [{"branch": "release/*", "gpu":
// "*H100*", "set": {"min_effect": 0.5}}]}. Throws std::invalid_argument naming the field (and the value) that is
// wrong: not JSON, an unknown key or parameter, a value out of its range, a pattern that is not a string.
GateConfig parse_gate_config(std::string_view json_text);

struct ResolvedGate {
  GateParams params;
  // What the run's branch and GPU changed from the server's parameters, for the coverage line ("" where nothing):
  // "gate for branch 'release/*', GPU '*H100*': min_effect 0.5".
  std::string note;
};
// `base` (the built-in parameters, or a test's) with the config's defaults, then every override whose patterns
// match `branch` and `gpu`.
ResolvedGate resolve_gate(const GateParams& base, const GateConfig& config, std::string_view branch, std::string_view gpu);

}  // namespace shaderwatch::analysis
