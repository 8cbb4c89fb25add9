// The server's judgements as pure functions over in-memory values (after LNT's ComparisonResult):
// compare two runs' benchmark, flag a suspect run, tell a ranking flip from noise. The Store loads the
// numbers from SQLite and calls these; tests/server/analysis_test.cpp drives them without a database.
#pragma once

#include <cstdint>
#include <map>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "detection/detect.h"
#include "detection/run_evidence.h"
#include "detection/single_run_gate.h"

namespace shaderwatch::analysis {

// ---- compare: one benchmark of two runs (GET /api/v1/compare)
struct CompareParams {
  double alpha = 0.05;        // compare.py's default
  double min_delta_pct = 1;   // LNT's MIN_PERCENTAGE_CHANGE
  double min_delta_ns = 500;  // LNT's MIN_VALUE_PRECISION: what two processes resolve at all
  bool noise_floor = true;    // also the benchmark's own sample spread (p25-p75), where known
};
struct RunSide {
  double value = 0;                  // the run's point (median of repetitions), ns
  std::vector<double> reps;          // its repetitions, ns
  std::optional<double> spread_pct;  // (p75 - p25) / median of its samples, from the bench's counters
  bool error = false;
};
enum class CompareVerdict { Same, Slower, Faster, Error, InsufficientRepetitions };
const char* to_string(CompareVerdict v);
struct CompareResult {
  CompareVerdict verdict = CompareVerdict::Same;
  std::optional<double> delta_pct, p_value, spread_pct, floor_pct;
  bool reliable = false;  // 9+ repetitions a side (compare.py's UTEST_OPTIMAL_REPETITIONS)
};
CompareResult compare(const RunSide& base, const RunSide& contender, const CompareParams& p = {});

// ---- suspects: a run clearly above its series' current level, before any change point can confirm it
struct Suspect {
  double level = 0, noise = 0, floor = 0, delta = 0, z = 0;  // level ns; the others relative
  double gate_floor = NAN;  // the single-run gate's floor it stayed under (relative), where the gate judged it
  Baseline against = Baseline::Level;  // what `level` is the median of: its level's runs, or the previous runs
  std::size_t runs = 0;                // how many
};
// One-sided: 0.13% of unchanged series-runs under Gaussian noise, as a t quantile for the level's runs (3.21 at
// 48 of them, 3.95 at 12 or fewer).
inline constexpr double kSuspectZ = 3.0;
// `level_runs`: the level's run values (newest first or any order), at least min_segment of them. The run
// is the unit: its value against the level's runs, beyond the detector's effect floor and kSuspectZ of
// the level's run-to-run noise (as stats::tail_threshold turns it into a t quantile).
std::optional<Suspect> suspect(double value, const std::vector<double>& level_runs, const detect::Params& p = {});

// ---- verdict: what CI gates on, from the evidence the store loaded for one run
// How many standard errors the median of `recent` (runs after the step, outlier runs left out) lies above the
// old level `before`, for a series of relative noise `noise_rel` and an old level of n_before runs.
double evidence_z(double before, const std::vector<double>& recent, double noise_rel, std::size_t n_before);
struct CorrectnessFinding {
  const BenchmarkEvidence* benchmark;
  detect::AlertKind kind;  // correctness_regression when it passed before, else correctness_failure
};
struct SuspectFinding {
  const BenchmarkEvidence* benchmark;
  Suspect suspect;
};
struct SlowdownFinding {
  const BenchmarkEvidence* benchmark;
  Slowdown slowdown;
};
// What the verdict could see: how many benchmarks each rule judged, and the history they had.
struct Coverage {
  int first_runs = 0;      // no earlier run: nothing to judge the time against
  int previous_runs = 0;   // the cold-start rule
  int level = 0;           // the single-run gate against a level
  int change_points = 0;   // with the detector's min_history runs or more (also gated by the single-run gate)
  int not_timed = 0;       // failed (no time), or every benchmark where timings do not gate (a cpu device)
  std::size_t series_runs = 0;  // earlier runs the lone swing was looked for in, over all series
  bool gated = false;           // enough of them for the single-run gate (GateParams::min_swing_series_runs)
  std::size_t history_min = 0, history_max = 0;
  double swing = 0;        // the GPU's largest lone swing the floor allowed for (log)
  // The GPU's noise model, where it set the floors (else the prior did).
  bool modeled = false;
  std::size_t model_changes = 0;   // run-to-run changes it was learned from
  std::size_t model_left_out = 0;  // changes of the runs that stood out (a step, a failed slowdown), left out
  int model_excluded = 0;          // series with an open regression, whose runs it did not learn from
  double model_tail = 0;           // the floor in units of each benchmark's run-to-run noise
  double run_spread = 1;           // this run's own spread in those units, where over 1: every floor times it
  double floor_min = 0, floor_median = 0, floor_max = 0;  // the relative floors the run was judged at
  // Past the model's floor but run as before (BenchmarkEvidence::ran_as_before) and under the prior's: suspects.
  int held_as_before = 0;
};
struct RunVerdict {
  bool fail = false;
  std::vector<CorrectnessFinding> correctness;
  std::vector<std::int64_t> regressions, acknowledged;  // alert ids: still present at the run's level
  std::vector<std::int64_t> unconfirmed;  // new regressions present but under GateParams::alert_z: not failing
  std::vector<SlowdownFinding> slowdowns;               // the single-run gate's failures
  std::vector<SuspectFinding> suspects;
  Coverage coverage;
};

// Fails on any correctness failure; where timings gate, on a slowdown the single-run gate finds (any branch),
// and on a main run on every new regression the run still carries (detect::presence over the runs since its
// step): a later alert never masks an earlier regression, and one whose series is back on its old level no longer
// gates. A detector's alert fails once its evidence passes GateParams::alert_z; one the gate raised (at ingest, from
// this judgement) was confirmed by its floor and fails while present, listed at its own run as the slowdown it is.
// Suspects as suspect() says, less the benchmarks the gate failed.
// `for_each` spreads the per-benchmark work: for_each(n, f) calls f(i) once for each i < n, in any order or at once (a
// worker pool's parallel_for); none: one by one. The verdict is the same either way.
using ForEach = std::function<void(std::size_t, const std::function<void(std::size_t)>&)>;
RunVerdict judge(const RunEvidence& run, const detect::Params& p = {}, const GateParams& g = {},
                 const ForEach& for_each = {});
// One line for people: "history: 2 runs; judged against the previous runs; change points from 18 runs".
std::string coverage_line(const Coverage& c, const detect::Params& p = {}, const GateParams& g = {});

// An open noise alert of one of the run's series, at or before the run: its noise's ratio (after / before), the run
// it rose at and its cause.
struct NoisySeries {
  double ratio = 1;
  std::string since_run, cause;
};
// The run's series whose noise rose, as the verdict names them: how many, their median ratio, the boundary and the
// cause most of them share.
struct NoiseFinding {
  int benchmarks = 0;
  double ratio = 1;
  std::string since_run, cause;
};
// Named only where the series whose noise rose are kNoisyShare of the run's `series` or more: a runner or driver
// is shared by all of them, and a few series' noise alerts (true, or one of the few false ones a fleet sees) are
// their alerts' to tell, not the run's. (Any number named a noisy runner on 16-36 of 240 runs of quiet GPUs, 350
// benchmarks.)
inline constexpr double kNoisyShare = 0.1;
std::optional<NoiseFinding> noise_finding(const std::vector<NoisySeries>& open_noise, std::size_t series);

// ---- rankings: whether variant x's order against y on one GPU is beyond noise
inline constexpr double kMinFlipRel = 0.01;
// Times vx, vy with their series' relative run-to-run noise nx, ny: the gap is at least kMinFlipRel and
// twice the combined noise. A flip needs this on both GPUs.
bool clear_gap(double vx, double vy, double nx, double ny);

// One GPU's variants of one (family, config): variant -> its time (ns) and its series' relative noise.
struct VariantTime {
  double value = 0, noise = 0;
};
using GpuVariants = std::map<std::string, VariantTime>;
struct Flip {
  std::size_t gpu_a = 0, gpu_b = 0;  // keys of the map given
  std::string faster_on_a, faster_on_b;
  double gap_on_a_rel = 0, gap_on_b_rel = 0;
};
// Every pair of variants whose order differs between two GPUs with each order beyond noise (clear_gap on both
// GPUs). Variants within noise of each other swap places from run to run and are no flip.
std::vector<Flip> flips(const std::map<std::size_t, GpuVariants>& per_gpu);

}  // namespace shaderwatch::analysis
