// The server's judgements as pure functions over in-memory values (after LNT's ComparisonResult):
// compare two runs' benchmark, flag a suspect run, tell a ranking flip from noise. The Store loads the
// numbers from SQLite and calls these; tests/server/test_analysis.cpp drives them without a database.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shaderwatch/detect.hpp"

namespace sw::analysis {

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
enum class CompareVerdict { same, slower, faster, error, insufficient_repetitions };
const char* to_string(CompareVerdict v);
struct CompareResult {
  CompareVerdict verdict = CompareVerdict::same;
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
// the level's run-to-run noise (as detect::tail_threshold turns it into a t quantile).
std::optional<Suspect> suspect(double value, const std::vector<double>& level_runs, const detect::Params& p = {});

// ---- verdict: what CI gates on, from the evidence the store loaded for one run
struct OpenRegression {
  std::int64_t alert_id = 0;
  bool acknowledged = false;  // else new
  std::optional<double> before, after;  // levels (ns); absent: kept, there is nothing to judge it by
  double floor_rel = 0;
};
struct BenchmarkEvidence {
  std::string name;
  std::int64_t series_id = 0;
  bool failed = false;         // reported an error (not the negative control's, not UNSUPPORTED)
  bool passed_before = false;  // its series' previous main run passed
  std::string error_message;
  double value = 0;                    // this run's point (ns)
  std::vector<OpenRegression> open;    // regression alerts at or before the run, new or acknowledged
  std::vector<double> recent;          // the series' latest main runs up to this one
  std::vector<double> level_runs;      // the level it is judged against: main runs since the latest change point
};
struct RunEvidence {
  bool on_main = true;  // a run on another branch never gates on performance
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
struct RunVerdict {
  bool fail = false;
  std::vector<CorrectnessFinding> correctness;
  std::vector<std::int64_t> regressions, acknowledged;  // alert ids: still present at the run's level
  std::vector<SuspectFinding> suspects;
};
// Fails on any correctness failure, and on a main run on every new regression still present at the
// run's level (detect::still_present over `recent`): a later alert never masks an earlier regression,
// and one whose series is back on its old level no longer gates. Suspects as suspect() says.
RunVerdict judge(const RunEvidence& run, const detect::Params& p = {});

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

}  // namespace sw::analysis
