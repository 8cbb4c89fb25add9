// GET /api/v1/runs/{id}/verdict as a value: what CI gates on, what the run report (run_report.h) and the
// fleet simulation read.
#pragma once

#include <cstddef>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detection/alert_kinds.h"
#include "detection/analysis.h"
#include "queries/alert_answer.h"

namespace shaderwatch {

// What a run off the main branch was judged against (a main run has none).
struct CorrectnessEntry {
  std::string benchmark;
  std::int64_t series_id = 0;
  detect::AlertKind kind = detect::AlertKind::CorrectnessFailure;
  std::string error_message;
};

struct SuspectEntry {
  std::string benchmark;
  std::int64_t series_id = 0;
  double level_ns = 0, value_ns = 0, delta_pct = 0, floor_pct = 0, z = 0;  // floor_pct: the suspect's own threshold
  double gate_floor_pct = NAN;  // the single-run gate's floor it stayed under, NaN where the gate did not judge it
  analysis::Baseline against = analysis::Baseline::Level;  // level_ns: its level's median, or the previous runs'
  std::size_t baseline_runs = 0;
};

struct SlowdownEntry {
  std::string benchmark;
  std::int64_t series_id = 0;
  analysis::Baseline against = analysis::Baseline::None;
  std::size_t baseline_runs = 0;
  double baseline_ns = 0, value_ns = 0, delta_pct = 0, floor_pct = 0, noise_pct = 0;
};

// A kernel the device could not run or an expectations entry skipped: neither a pass nor a failure.
struct SkippedEntry {
  std::string benchmark, reason;
};

struct VerdictCoverage {
  analysis::Coverage counts;
  bool timings_gated = true;
  double swing_pct = 0;  // counts.swing as a percentage
  std::string line;      // analysis::coverage_line: the history in one line for people
  std::string gate;      // what the server's gate configuration changed for this run's branch and GPU ("": nothing)
};

// The run's series whose run-to-run noise rose (open noise alerts at or before the run): a noisier runner or
// driver is named as such, not taken for regressions. Absent where none did.
struct NoiseNote {
  int benchmarks = 0;     // series of this run with such an alert
  double ratio = 1;       // their median noise ratio (after / before)
  std::string since_run;  // the boundary most of them share
  std::string cause;      // the cause most of them carry
  std::string line;       // "runner noisy: 350 benchmarks' spread x4.0 since run r30 (cause: machine)"
};

// The one explanation of a benchmark the verdict names (failing, suspect, unconfirmed or acknowledged), built by
// queries/verdict_explanation.h: every output (summary.md, junit.xml, results.csv, the run page, the bench after
// --post) renders it and none words its own.
struct Explanation {
  std::string benchmark;
  std::int64_t series_id = 0;
  std::string finding;  // slowdown, regression, correctness_failure, correctness_regression, suspect, unconfirmed, acknowledged
  bool failing = false;  // the verdict fails on it
  double before_ns = NAN, after_ns = NAN, change_pct = NAN, floor_pct = NAN;  // NaN where the finding has none
  std::string against;    // the baseline in words: "main's level (median of 12 runs, to run r41)"
  std::string headline;   // one line: the finding, before -> after, against what, past (or under) which threshold
  std::string evidence;   // one line: what changed since baseline_run, or that nothing recorded did
  std::vector<std::string> changed;  // the same, item by item: "SPIR-V de183201 -> a1cc297d", "CS Register Count 23 -> 25"
  std::string run_id;                // the run the change shows at (a regression's: its first slow run)
  std::string baseline_run;          // the run compared with (empty where none)
  std::string good_commit, bad_commit;  // either side, for bisect (empty where unknown or the same)
  std::optional<std::int64_t> alert_id;
};

struct Verdict {
  std::string run_id, branch;
  std::optional<VerdictBaseline> baseline;
  bool fail = false;
  std::vector<CorrectnessEntry> correctness;
  std::vector<Alert> regressions, acknowledged_regressions, unconfirmed_regressions;
  std::vector<SlowdownEntry> slowdowns;
  std::vector<SuspectEntry> suspects;
  std::vector<SkippedEntry> skipped;
  std::vector<Explanation> explanations;  // failing ones first, in the lists' order
  VerdictCoverage coverage;
  std::optional<NoiseNote> noise;
};

}  // namespace shaderwatch
