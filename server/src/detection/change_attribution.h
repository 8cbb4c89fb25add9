// The attribution of a change a series shows at a boundary, read from the store: the runs either side (commit,
// driver, runner), the same benchmark on the other GPUs and the other benchmarks of the run, fed to the pure
// detect::attribute (attribution.h), and written as the alert's attribution (alert_attribution.h). run_detector calls it for steps,
// drifts, noise changes and correctness changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>


#include "common/driver_identity.h"
#include "detection/alert_attribution.h"
#include "detection/detect.h"
#include "detection/noise_change.h"
#include "detection/single_run_gate.h"
#include "storage/sql.h"

namespace shaderwatch {

// A run as attribution reads it.
struct RunInfo {
  std::int64_t id = 0, started_ms = 0, gpu_id = 0;
  std::string key, commit, runner;
  DriverIdentity driver;
};
RunInfo load_run(sql::Conn& c, std::int64_t id);

// What differs between two runs of series sid (its kernel `kernel`, family/variant), in words for people: the
// kernel's SPIR-V, input and compiled statistics, the driver, the runner. The commit is not evidence and is left
// out; what one side did not record is named as unknown.
struct RunDifference {
  std::vector<std::string> changed;  // "SPIR-V de183201 -> a1cc297d", "CS Register Count 23 -> 25", "driver A -> B"
  std::string same;                  // what recorded is the same: "SPIR-V, compiled statistics, driver and runner"
  std::vector<std::string> unknown;  // "compiled statistics" where either run did not record them
};
RunDifference what_changed(sql::Conn& c, std::int64_t sid, const std::string& kernel, const RunInfo& before,
                           const RunInfo& after);

// What changed at a boundary, and so what a sibling series must show to have changed with it.
enum class ChangeOf {
  Level,        // a step: `own` is its relative size
  Correctness,  // failing from the boundary on
  Noise,        // the run-to-run noise: `own` is its ratio (after / before)
};

// The attribution of a change between runs a and b of series sid, checking siblings.
AlertAttribution attribute_change(sql::Conn& c, std::int64_t sid, const RunInfo& a, const RunInfo& b, double own,
                                  ChangeOf what, const detect::Params& params);
// A drift's alert says so: its rate and where it started, before the attribution's own summary.
AlertAttribution with_trend(AlertAttribution attribution, const detect::ChangePoint& cp, const std::string& since_run);
// An alert the single-run gate raised says so: the slowdown it failed, against what, past which floor (`gate` is
// also how the verdict knows the gate confirmed it), before the attribution's own summary.
AlertAttribution with_gate(AlertAttribution attribution, const analysis::Slowdown& s, double value_ns, const std::string& run);
// A noise alert says what changed: the noise either side and since which run, before the attribution's summary.
AlertAttribution with_noise(AlertAttribution attribution, const detect::NoiseChange& nc, const std::string& since_run);

}  // namespace shaderwatch
