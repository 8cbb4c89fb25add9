// What the verdict is judged on: the evidence the store loads for one run, as plain values (the verdict's
// judge, analysis.h, and the single-run gate, single_run_gate.h, read it; queries/verdict_evidence.cpp fills it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shaderwatch {

// A branch run's baseline as the verdict says it: main's level at the run's merge base (detection/verdict_evidence.h's
// level_bound finds it).
struct VerdictBaseline {
  std::string branch;
  std::optional<std::string> merge_base;  // absent where the run names none
  std::optional<std::string> run_id;      // main's run at the merge base on this GPU, where there is one
};

}  // namespace shaderwatch

namespace shaderwatch::analysis {

// The most runs a level holds (the newest since the series' latest change point), and the most runs since a
// regression's step its score is taken on.
inline constexpr std::size_t kLevelRuns = 48;
struct OpenRegression {
  std::int64_t alert_id = 0;
  bool acknowledged = false;  // else new
  std::optional<double> before, after;  // levels (ns); absent: kept, there is nothing to judge it by
  double floor_rel = 0;
  double noise_rel = 0;       // the series' noise when it was raised (0: unknown, not scored)
  std::size_t n_before = 0;   // runs of the old level
  std::vector<double> since;  // the series' main runs from its step up to this run, newest first (at most kLevelRuns)
  std::size_t n_after = 0;    // runs its new level was measured on when it was raised
  // Raised by the single-run gate (and not yet taken over by the detector's change point): its floor confirmed
  // it, so it fails while present without the alert_z score a detector's alert must reach.
  bool by_gate = false;
  bool raised_here = false;   // its step is the run judged: no step in the history the noise model learns from
};
struct BenchmarkEvidence {
  std::string name;
  std::int64_t series_id = 0;
  bool failed = false;         // reported an error (not the negative control's, not UNSUPPORTED)
  bool passed_before = false;  // its series' previous main run passed
  std::string error_message;
  double value = 0;                    // this run's point (ns)
  std::string spirv;                   // this run's SPIR-V hash (its point's; empty where it named none)
  std::vector<OpenRegression> open;    // regression alerts at or before the run, new or acknowledged
  std::vector<double> level_runs;      // the level it is judged against: main runs since the latest change point
                                       // (at most kLevelRuns)
  double spread = 0;                   // this run's repetition_spread (its point's)
  std::vector<double> level_spreads;   // the repetition_spread of level_runs' newest runs, in the same order
  // Main runs before the level's bound, oldest first, at most GateParams::swing_runs, across change points:
  // where the GPU's lone swings and its noise model are looked for.
  std::vector<double> swing_history;
  // Each swing_history run's SPIR-V hash (its point's; empty where it named none): a change across which the
  // kernel's code changed is a change of the code, not the GPU's noise, and the noise model leaves it out.
  std::vector<std::string> swing_spirv;
  std::size_t history = 0;  // main runs of the series before the level's bound (at most Params::noise_window)
  // What ran is as at the newest main run before the bound: the kernel's compiled evidence (SPIR-V, input, the
  // driver's statistics; its SPIR-V alone where nothing was compiled) and the run's driver and runner, all recorded
  // and all the same. False where anything changed or was not recorded.
  bool ran_as_before = false;
};
struct RunEvidence {
  bool on_main = true;  // a run on another branch raises no alert; it is gated by the single-run gate alone
  // Timings from a device of type cpu (lavapipe on a shared runner) are stored and shown but gate only where
  // the server is told to: such a run is judged on correctness.
  bool timings_gated = true;
  std::vector<BenchmarkEvidence> benchmarks;
};
}  // namespace shaderwatch::analysis
