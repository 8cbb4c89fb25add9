// The gate's parameters as data (detection/gate_config.h): the file's errors name their field, the overrides
// that match a run's branch and GPU apply in order, and the note says what they changed.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "detection/gate_config.h"

using shaderwatch::analysis::GateConfig;
using shaderwatch::analysis::GateParams;
using shaderwatch::analysis::parse_gate_config;
using shaderwatch::analysis::resolve_gate;

namespace {

// The message of the error parsing `text` throws ("" where it parses).
std::string error_of(const std::string& text) {
  try {
    parse_gate_config(text);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

}  // namespace

TEST(GateConfig, EveryMistakeIsNamedByItsField) {
  EXPECT_EQ(error_of("{\"defaults\": {\"z\": 6}}"), "");
  EXPECT_EQ(error_of("[1]"), "not a JSON object");
  EXPECT_EQ(error_of("{\"defaults\": "), "not a JSON object");
  EXPECT_EQ(error_of("{\"default\": {}}"), "default: unknown key (expected \"defaults\" and \"overrides\")");
  EXPECT_EQ(error_of("{\"defaults\": {\"zz\": 6}}").rfind("defaults.zz: no such gate parameter (one of:\n  min_effect", 0), 0u);
  EXPECT_EQ(error_of("{\"defaults\": {\"z\": \"6\"}}"), "defaults.z: must be a number");
  EXPECT_EQ(error_of("{\"defaults\": {\"z\": 0.5}}"), "defaults.z: 0.5 is not from 1 to 50");
  EXPECT_EQ(error_of("{\"defaults\": {\"swing_runs\": 10.5}}"), "defaults.swing_runs: 10.5 is not a whole number from 2 to 1000");
  EXPECT_EQ(error_of("{\"overrides\": {}}"), "overrides: must be an array");
  EXPECT_EQ(error_of("{\"overrides\": [{\"branch\": \"x\"}]}"), "overrides[0].set: missing (the parameters it sets)");
  EXPECT_EQ(error_of("{\"overrides\": [{\"set\": {}}, {\"gpu\": 7, \"set\": {}}]}"),
            "overrides[1].gpu: must be a non-empty shell pattern (\"release/*\", \"*H100*\")");
  EXPECT_EQ(error_of("{\"overrides\": [{\"branches\": \"x\", \"set\": {}}]}"),
            "overrides[0].branches: unknown key (expected branch, gpu and set)");
  EXPECT_EQ(error_of("{\"overrides\": [{\"set\": {\"model.min_effect\": -1}}]}"),
            "overrides[0].set.model.min_effect: -1 is not from 0 to 100");
}

TEST(GateConfig, TheOverridesThatMatchARunsBranchAndGpuApplyInOrder) {
  const GateConfig config = parse_gate_config(R"({
    "defaults": {"z": 6, "model.min_effect": 0.08},
    "overrides": [
      {"branch": "release/*", "set": {"min_effect": 0.5, "z": 7}},
      {"gpu": "*H100*", "set": {"z": 8}},
      {"branch": "release/*", "gpu": "NVIDIA H100*", "set": {"swing_runs": 24}}
    ]})");
  const GateParams base;
  const auto plain = resolve_gate(base, config, "main", "NVIDIA H200");
  EXPECT_EQ(plain.params.z, 6);
  EXPECT_EQ(plain.params.model.min_effect, 0.08);
  EXPECT_EQ(plain.params.min_effect, base.min_effect);
  EXPECT_EQ(plain.note, "") << "the server's own defaults are no override of the run's";

  const auto release_h200 = resolve_gate(base, config, "release/2.1", "NVIDIA H200");
  EXPECT_EQ(release_h200.params.min_effect, 0.5);
  EXPECT_EQ(release_h200.params.z, 7);
  EXPECT_EQ(release_h200.note, "gate for branch 'release/*', GPU '*': min_effect 0.5, z 7");

  const auto release_h100 = resolve_gate(base, config, "release/2.1", "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(release_h100.params.z, 8) << "a later override wins";
  EXPECT_EQ(release_h100.params.swing_runs, 24u);
  EXPECT_EQ(release_h100.note, "gate for branch 'release/*', GPU '*': min_effect 0.5, z 7; gate for branch '*', GPU "
                               "'*H100*': z 8; gate for branch 'release/*', GPU 'NVIDIA H100*': swing_runs 24");

  const auto none = resolve_gate(base, GateConfig{}, "release/2.1", "NVIDIA H100");
  EXPECT_EQ(none.params.z, base.z);
  EXPECT_EQ(none.note, "");
}
