// Change points in a series: pure statistics, no I/O, no HTTP, so the tests can drive it directly with
// synthetic series. The vocabulary is alert_kinds.h, the basic statistics statistics.h, the blame
// attribution.h. The design and its thresholds are explained in server/README.md ("Detector").
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detection/alert_kinds.h"
#include "common/statistics.h"

namespace shaderwatch::detect {

struct Params {
  // A segment must hold at least this many points (runs) on each side of a change point, so a
  // lone outlier (or two) can never form a segment of its own.
  std::size_t min_segment = 6;
  // No detection on series shorter than this (noise estimates need the points).
  std::size_t min_history = 18;
  // Stage 1: robust split score (difference of the segments' 20% trimmed means in units of
  // the standard error of that difference), roughly N(0,1) under no change. 5.0 gave no alert
  // in 150,000 simulated A/A runs while finding 3% steps in 1% noise ~7 runs after them.
  double cp_threshold = 5.0;
  // Stage 1b: the one split new at each run (exactly min_segment runs after it) is also tested alone, at a
  // threshold for one test rather than a search over the window: a normal tail, turned into the Student-t quantile
  // of the same tail for the noise estimate's degrees of freedom. 4.5: 0.0-0.3 failed verdicts per 1000 runs in 40
  // A/A fleet trials per noise model; 4.3 failed 2.2 per 1000 (gauss, 10 trials), over the target.
  double tail_threshold = 4.25;
  // Stage 1c: the latest segment's older splits, tried when the newest one is not a change: the split that leaves
  // exactly `age` runs after it, for each of these ages, at older_tail_threshold (as a t quantile). A small step
  // grows its score with the runs on it and passes the test of its own age as soon as it can, where the window's
  // search (stage 1) pays for every position. Ages about 10% apart: a step between two ages is tested with few of
  // its runs on the wrong side. The tests are nearly the same statistic at neighbouring ages, so 17 of them raise
  // false alerts far less than 17-fold (server/README.md, "Stage 1c"). Tried only where the latest segment's
  // noise is steady (see detect.cpp).
  std::array<std::size_t, 17> tail_ages{7, 8, 9, 10, 11, 12, 14, 16, 18, 20, 22, 24, 27, 30, 34, 38, 43};
  double older_tail_threshold = 4.5;
  // Stages 1b and 1c judge a split by the RMS of the latest segment's residuals around the split's two levels where
  // that segment holds this many runs or more and its noise is steady (0: never; see tail_split in detect.cpp).
  std::size_t residual_runs = 24;
  // Stage 1's threshold is raised for the uncertainty of the series' noise estimate: divided by
  // (1 - noise_sd_margin * relative s.e. of that estimate): 5.7 at 96 points, 7.0 at 18.
  double noise_sd_margin = 1.5;
  // Stage 2: the shift must exceed noise_k times the series' own robust noise (the larger of
  // 1.4826 * MAD of residuals around segment levels and the stage-1 sigma), and never less
  // than min_rel_effect.
  double noise_k = 1.0;
  double min_rel_effect = 0.005;
  // Stage 2: Mann-Whitney U on the runs either side (one value per run: the run is the unit of
  // evidence, as repetitions of one run share its conditions) must reach this p-value, otherwise the
  // change is reported as ambiguous instead of guessed. 6 runs against 12 can reach 1.1e-4.
  double alpha = 0.001;
  // Most points segmented per series (the latest ones).
  std::size_t window = 96;
  // Most points the noise is estimated from (detect() segments only the last `window` of the
  // points it is given and estimates the noise from all of them).
  std::size_t noise_window = 96;
  // Most points per side fed to the U test (the ones nearest the boundary).
  std::size_t utest_points = 48;
  // Runs whose median says whether a regression is still present at the current level.
  std::size_t present_points = 6;
  // A change in run-to-run noise (noise_change.h) is an event when its split scores this many standard
  // errors (a search over every split, as stage 1's) and the noise changed by this factor or more either way.
  double noise_z = 5.5;
  double noise_ratio = 2.0;
  // A regression stops failing verdicts once its latest runs are back by present_z standard errors (still_present),
  // and is closed as fixed by the evidence at fixed_z: the confidence a step's confirmation takes (tail_threshold).
  double present_z = 3.0;
  // The same for the newest 1 .. present_points - 1 runs alone (present_in_newest): five more tests per run, each
  // at a one-sided normal tail of 3.4e-4. In the fleet (350 benchmarks) the share of runs failing on a regression
  // still there fell by under 1 point (heavy noise), and a revert's failed verdicts by 10-19 of 360 runs.
  double present_newest_z = 3.4;
  double fixed_z = 4.5;
};

// One run of a series: its value (median of repetitions, in ns) and the raw repetitions.
struct Point {
  double value = 0;
  std::vector<double> reps;
};

struct ChangePoint {
  std::size_t index = 0;  // first point of the new segment
  std::size_t n_before = 0, n_after = 0;
  double before = 0, after = 0;  // segment levels, 20% trimmed means (ns)
  double delta_rel = 0;          // after/before - 1 (positive = slower)
  double noise_rel = 0;          // robust relative noise of the series (residual MAD)
  double floor_rel = 0;          // effect floor applied: max(min_rel_effect, noise_k*noise_rel)
  double score = 0;              // stage-1 split score
  double p_value = 1;            // stage-2 U test p-value, on run values
  ChangeKind outcome = ChangeKind::None;
  // A drift: the series moves steadily from `index` on (before: the level there, after: the level now),
  // reported as this one change point instead of a staircase of steps.
  bool trend = false;
  double rate_rel = 0;  // per run
};

// The runs of a series detection looks at: log values (steps and noise become relative), in time order, with
// the outlier runs left out (a run far from the median of the runs around it: see detect.cpp); `at` maps each
// back to its index in the points given.
struct KeptRuns {
  std::vector<double> y;
  std::vector<std::size_t> at;
  // How many runs were given, outlier runs included (0: unknown, as many as the newest kept run says).
  std::size_t given = 0;
  // Per kept run, its GPU's noise then relative to the series' own (gpu_noise.h), where the caller knows it (empty:
  // unknown). A run whose GPU is clearly noisier is judged against that much more noise.
  std::vector<double> gpu_noise;
};
// A run's value as detection sees it: its log, so that steps and noise are relative and one threshold fits 1 us and
// 1 s kernels.
inline double log_value(double ns) { return std::log(std::max(ns, 1e-6)); }
// `gpu_noise`: per point given, its GPU's noise factor then (empty: unknown); a run on a clearly noisier GPU is an
// outlier only that many times further out.
KeptRuns kept_runs(const std::vector<Point>& all, const Params& p = {}, const std::vector<double>& gpu_noise = {});
// The same over the points' log_value()s, where the caller keeps them (the server's windows do: every series of
// every run is looked at again at each run).
KeptRuns kept_runs_of_logs(const std::vector<double>& y_given, const Params& p, const std::vector<double>& gpu_noise);

// Run-to-run noise of a stretch of values in time order (log values give relative noise): the larger
// of the MAD estimate and the first-difference estimate the detector uses (which is nearly as efficient
// as the SD), so an unlucky MAD never makes noise look like a change.
double run_noise(const std::vector<double>& values);
// The detector's own estimate of a stretch's run-to-run noise alone: the RMS of the smallest 90% of its first
// differences, scaled to a run's sigma (about 90% as efficient as the SD; a level change moves one difference).
double diff_noise(const std::vector<double>& values);

// A step as an alert records it: the levels either side (ns), its effect floor, the series' noise then (relative;
// 0: unknown) and the runs its new level was measured on.
struct Step {
  double before = 0, after = 0, floor_rel = 0, noise_rel = 0;
  std::size_t n_after = 0;
};
// The step with its new level measured on `level_runs` (its runs since the step, before the ones a presence test
// judges) where they are more than the alert measured it on, and min_segment at least; else the step as raised. An
// alert raised on its first runs keeps their chance level: a small step found when those sat high was closed as
// fixed by six runs back at its true level, a revert judged against a level that sat low failed its first runs.
Step remeasured(const Step& step, const std::vector<double>& level_runs, const Params& p = {});
// Whether a step still holds at the current level, the median of `recent` (the latest run values, at most
// Params::present_points of them). It is gone only on evidence: that median is back from the step's level
// towards the old one by `gone_z` standard errors of the difference (the step's noise, the median of those runs
// against the n_after runs of its level) and lies beyond the old level, in the step's direction, by less than
// the larger of the step's floor and two standard errors of that median, and less than half the step. So a
// partial fix leaves it present, and a small step is not taken for gone by six runs that happen to sit low. With
// the noise unknown, the floor and the half step alone decide.
bool still_present(const Step& step, const std::vector<double>& recent, double gone_z, const Params& p = {});
// The verdict's question, whether a run still carries the step: still_present at present_z, or gone as soon as
// the newest k < present_points runs alone are back at present_newest_z (`recent` oldest first). A revert of 3% in
// 1% noise frees the verdict from its second run, of 6% from its first, where the median of six waited for the
// fourth. Closing the alert (alert_lifecycle) still takes the six.
// `since`: the runs since the step, oldest first, up to the newest of `recent` (empty: the step's level as the alert
// measured it); the test of the newest k runs takes the step's level from the runs before them (remeasured).
bool present_in_newest(const Step& step, const std::vector<double>& recent, const Params& p = {},
                       const std::vector<double>& since = {});

// Whether an open regression is still there, decided once for both its readers: the verdict (a run fails on it
// while Carried) and the alert's lifecycle (closed as fixed at Fixed). `since`: the series' main runs from the step's
// first run up to the run asked about, oldest first (empty: no evidence, Carried).
//   Fixed: its newest present_points runs are back at fixed_z (still_present), the step's level measured on the runs
//          before them (remeasured): the confidence a step's confirmation takes.
//   Back: not fixed, but present_in_newest says the run no longer carries it: the run passes, the alert stays open.
//   Carried: neither.
// Fixed implies back: fixed_z is above present_z and the test of the newest present_points runs is the same.
enum class PresenceState { Carried, Back, Fixed };
struct Presence {
  PresenceState state = PresenceState::Carried;
  Step level;  // the step as the Fixed test measured it (remeasured on the runs before the newest present_points)
};
Presence presence(const Step& step, const std::vector<double>& since, const Params& p = {});

// Two-stage detection over a series in time order: the noise is estimated from all the points
// given, change points are looked for in the last Params::window of them. Returns every change point that passed
// stage 1 and whose shift reached the effect floor, each classified by stage 2 (regression,
// improvement or ambiguous). Shifts below the floor are dropped (outcome none is never
// returned).
std::vector<ChangePoint> detect(const std::vector<Point>& series, const Params& p = {});
// The same over the series' kept runs (kept_runs), where the caller needs them for noise_change too.
std::vector<ChangePoint> detect(const KeptRuns& kept, const Params& p = {});

}  // namespace shaderwatch::detect
