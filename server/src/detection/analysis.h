// The server's judgements as pure functions over in-memory values (after LNT's ComparisonResult):
// compare two runs' benchmark, flag a suspect run, tell a ranking flip from noise. The Store loads the
// numbers from SQLite and calls these; tests/server/analysis_test.cpp drives them without a database.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "detection/detect.h"
#include "detection/gpu_noise_model.h"

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
};
// One-sided: 0.13% of unchanged series-runs under Gaussian noise, as a t quantile for the level's runs (3.21 at
// 48 of them, 3.95 at 12 or fewer).
inline constexpr double kSuspectZ = 3.0;
// `level_runs`: the level's run values (newest first or any order), at least min_segment of them. The run
// is the unit: its value against the level's runs, beyond the detector's effect floor and kSuspectZ of
// the level's run-to-run noise (as stats::tail_threshold turns it into a t quantile).
std::optional<Suspect> suspect(double value, const std::vector<double>& level_runs, const detect::Params& p = {});

// ---- the single-run gate: a slowdown no noise explains fails the run that brings it, on any branch, from
// the second run of a series on. The change points confirm the smaller steps a few runs later.
struct GateParams {
  // The smallest slowdown one run may fail on (here: twice as slow as the baseline). The fleet's heavy-tailed
  // noise (Student-t, 3 dof, 1% sd) moves a series-run by over 100% once in 1.6 million, by over 50% once in
  // 300,000: over 350 benchmarks, 0.2-0.4 and 1.1-2.2 failed runs per 1000 (measured at 50%: 2.8).
  double min_effect = 1.0;
  // A large multiple of the series' run-to-run noise, one-sided: a normal tail of 5 sigma (3e-7), turned into a
  // t quantile for the level's runs (stats::tail_threshold) where the noise is estimated from them.
  double z = 5.0;
  // Cold start: the run-to-run noise no series has shown yet, taken as 2% of the time plus 300 ns. Two processes
  // of one binary on one H200 moved every benchmark over 30 us by at most 0.44% and those under 30 us by at most
  // 3.8% (640 ns): twice to four times what this prior allows at 5 sigma. Each run's own repetition spread adds
  // to it (a bimodal or noisy run carries its doubt with it).
  double prior_noise_rel = 0.02;
  double prior_noise_ns = 300;
  // A GPU whose series swing up and back by a factor within one run (a slow mode) cannot fail a run on a swing
  // of that size: the floor is at least this power of the largest such lone swing among the run's series
  // (1.4: a slow mode seen at 2.43x, as in the legacy H200 pair, still lets its 3.6x blur fail; the fleet's 5% slow
  // mode on 24 benchmarks failed 1 run in 5,400 at 1.3, none at 1.4).
  double swing_power = 1.4;
  std::size_t swing_runs = 48;  // runs of each series the swing is looked for in
  // The gate waits until the run's series hold this many earlier runs between them (a suite of 350 benchmarks
  // from its second run, one of 24 from its eleventh): a GPU whose series fall into a slow mode in 5% of their
  // runs has shown it there about 12 times, so its swing is known before a run is failed.
  std::size_t min_swing_series_runs = 240;
  // A confirmed regression fails a run (while present) once the median of the series' runs since its step is
  // beyond the old level by this many standard errors of that difference (the series' noise, the median of
  // those runs against the n_before runs of the old level), as the Student-t quantile for the runs either side
  // (stats::tail_threshold: 6.0 at 48 runs, 7.1 at 24), the noise being estimated from them. The alert itself
  // is raised at the detector's thresholds: gating at this score keeps a suite of 350 benchmarks' false alerts
  // (an underestimated noise, a slow mode's runs) from failing runs, and a real step passes it as more runs sit
  // on it (its score grows with their square root). 5.5 as a plain normal quantile still failed 7.6 runs per
  // 1000 with a slow mode at 350 benchmarks.
  double alert_z = 5.0;
  // The GPU's noise model (detect::learn_noise_model): once it has enough run-to-run changes it sets every
  // benchmark's floor, and the rules above (min_effect, the prior, the lone swing) are the prior before it.
  detect::NoiseModelParams model;
};

// What a benchmark's value was judged against: nothing (its first run), the previous runs (fewer than
// min_segment since the series' latest change point: the cold-start rule) or the level (min_segment or more).
enum class Baseline { None, PreviousRuns, Level };
const char* to_string(Baseline b);

struct Slowdown {
  Baseline against = Baseline::None;
  std::size_t runs = 0;  // runs the baseline is the median of
  double baseline = 0;   // ns
  double delta = 0;      // value / baseline - 1
  double floor = 0;      // the relative slowdown it had to exceed
  double noise = 0;      // the run-to-run noise that floor assumed (relative)
};

// ---- verdict: what CI gates on, from the evidence the store loaded for one run
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
};
// How many standard errors the median of `recent` (runs after the step, outlier runs left out) lies above the
// old level `before`, for a series of relative noise `noise_rel` and an old level of n_before runs.
double evidence_z(double before, const std::vector<double>& recent, double noise_rel, std::size_t n_before);
struct BenchmarkEvidence {
  std::string name;
  std::int64_t series_id = 0;
  bool failed = false;         // reported an error (not the negative control's, not UNSUPPORTED)
  bool passed_before = false;  // its series' previous main run passed
  std::string error_message;
  double value = 0;                    // this run's point (ns)
  std::vector<OpenRegression> open;    // regression alerts at or before the run, new or acknowledged
  std::vector<double> recent;          // the series' latest main runs up to this one, oldest first
  std::vector<double> level_runs;      // the level it is judged against: main runs since the latest change point
                                       // (at most kLevelRuns)
  std::vector<double> reps;            // this run's repetitions (ns)
  std::vector<std::vector<double>> level_reps;  // the repetitions of level_runs' runs, in the same order
  // Main runs before the level's bound, oldest first, at most GateParams::swing_runs, across change points:
  // where the GPU's lone swings are looked for.
  std::vector<double> swing_history;
  std::size_t history = 0;  // main runs of the series before the level's bound (at most Params::noise_window)
};
struct RunEvidence {
  bool on_main = true;  // a run on another branch raises no alert; it is gated by the single-run gate alone
  // Timings from a device of type cpu (lavapipe on a shared runner) are stored and shown but gate only where
  // the server is told to: such a run is judged on correctness.
  bool timings_gated = true;
  std::vector<BenchmarkEvidence> benchmarks;
};
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
  std::size_t model_left_out = 0;  // changes of runs that moved every series, left out
  int model_excluded = 0;          // series with an open regression, whose runs it did not learn from
  double model_tail = 0;           // the floor in units of each benchmark's run-to-run noise
  double run_spread = 1;           // this run's own spread in those units, where over 1: every floor times it
  double floor_min = 0, floor_median = 0, floor_max = 0;  // the relative floors the run was judged at
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

// The largest lone swing among the run's series (log): a run above both its neighbours (the next being this
// run's value; the series' first run has only that one) in each series' swing_history.
double lone_swing(const RunEvidence& run, const GateParams& g = {});
// The earlier runs lone_swing looks in, over all the run's series.
std::size_t swing_series_runs(const RunEvidence& run, const GateParams& g = {});
// The single-run gate for one benchmark: its value against the median of its level's runs (min_segment or
// more) or of its previous runs (the cold-start rule), failing where the slowdown exceeds the rule's minimum
// effect, z times the run-to-run noise (estimated from the level, else the prior and the runs' own spread)
// and the GPU's lone swing to the power swing_power.
std::optional<Slowdown> gate(const BenchmarkEvidence& b, double swing, const GateParams& g = {},
                             const detect::Params& p = {});
// The prior's floor for the benchmark (what gate() fails past), its baseline and noise, failing or not.
std::optional<Slowdown> prior_floor(const BenchmarkEvidence& b, double swing, const GateParams& g = {},
                                    const detect::Params& p = {});
// The single-run gate by the GPU's noise model: the benchmark's value against the same baseline, its floor the
// model's tail times `noise` (the benchmark's run-to-run noise, log, times the run's spread), at least the model's
// minimum effect and at most `cap` (relative: the prior's floor). `fails`: past the floor; `suspect`: past the
// model's suspect threshold only.
struct ModelJudgement {
  Slowdown slowdown;
  bool fails = false, suspect = false;
};
std::optional<ModelJudgement> gate_by_model(const BenchmarkEvidence& b, double noise, const detect::GpuNoiseModel& m,
                                            double cap, const GateParams& g = {}, const detect::Params& p = {});
// Fails on any correctness failure; where timings gate, on a slowdown the single-run gate finds (any branch),
// and on a main run on every new regression still present at the run's level (detect::still_present over
// `recent`): a later alert never masks an earlier regression, and one whose series is back on its old level
// no longer gates. Suspects as suspect() says, less the benchmarks the gate failed.
RunVerdict judge(const RunEvidence& run, const detect::Params& p = {}, const GateParams& g = {});
// One line for people: "history: 2 runs; judged against the previous runs; change points from 18 runs".
std::string coverage_line(const Coverage& c, const detect::Params& p = {}, const GateParams& g = {});

// A normal distribution's interquartile range in sigmas: a p25..p75 spread over this is a sigma.
inline constexpr double kIqrSigmas = 1.349;

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
