// A GPU's single-run noise, learned from its own runs: how far one run of a benchmark moves from the previous
// ones when nothing changed, as a scale per benchmark (by its duration, and its own history where that is
// noisier) and one tail for the whole GPU, extrapolated from the run-to-run changes of all its series to the
// rate at which an unchanged suite may fail a run. The single-run gate's floor (single_run_gate.h) is that
// tail times the benchmark's scale. Pure: the verdict hands it each series' recent main runs.
#pragma once

#include <cstddef>
#include <vector>

namespace shaderwatch::detect {

struct NoiseModelParams {
  // An unchanged suite fails at most this share of its runs: each of its N judged benchmarks may exceed its floor
  // with probability target / N.
  double false_fail_target = 1e-3;
  // One series-run of this one-sided probability is a suspect (a normal tail of 3 sigma).
  double suspect_rate = 0.00135;
  // The run-to-run changes needed before the model replaces the prior (a suite of 350 benchmarks has them at its
  // third run, one of 24 at its tenth).
  std::size_t min_changes = 200;
  // The tail is read at the k-th largest change, k = max(tail_rank, changes / tail_rank_per), and at 4k (a
  // Weibull-type tail through both): a rank of 6 or more moves by one place for each series that a regression and
  // its revert added to it.
  std::size_t tail_rank = 6;
  std::size_t tail_rank_per = 1000;
  // From this many changes on, a Pareto tail too (Hill's estimator over the max(hill_rank, changes / hill_rank_per)
  // largest): a t distribution's far tail, which the Weibull-type one underestimates.
  std::size_t hill_min_changes = 4000;
  std::size_t hill_rank = 20;
  std::size_t hill_rank_per = 200;
  // Each tail's exponent is taken lower by this many of its standard errors (1 / sqrt(k) of it): with a few hundred
  // changes a heavy tail often looks lighter than it is.
  double shape_margin = 1.0;
  double max_shape = 2.0, min_shape = 0.2;  // 2: a normal tail
  double max_alpha = 50.0, min_alpha = 1.0;
  // Series whose durations are nearest a benchmark's (this many either side, at least kMinNeighbours) set its
  // duration's scale: short kernels are noisier than long ones.
  std::size_t neighbours_per = 12;  // half-width: series / neighbours_per
  // A run (a position among the series' latest runs) whose changes are this many times the typical run's is left
  // out: one run that moved every series (a whole-GPU step), or a few of them far (a slowdown the gate failed), is
  // not the noise.
  double run_outlier_ratio = 3.0;
  // The smallest slowdown a run fails on, whatever the noise: two processes minutes apart agree within 0.76% over
  // 30 us on an H200, but a GPU's clocks and temperature over days have not been measured here; 5% keeps half of
  // the smallest target step (10%) as margin.
  double min_effect = 0.05;
  // A benchmark's own noise sets its floor from this many changes of its own on (where larger than its duration's): a
  // kernel that moves 10x its duration's noise every run raises its own floor. (On an H200, a depth-of-field kernel
  // moving 1.5% where its neighbours move 0.13% took the tail from 47 to 336 of them at the fifth run, every floor to
  // 100%, when its own noise counted from 6 changes and in the tail from 12.)
  std::size_t own_min_changes = 4;
  // From this many changes of its own on, each of a benchmark's changes counts in the GPU's tail in units of the noise
  // its other changes show (their lower median): such a kernel's changes are not every benchmark's tail, and a lone far
  // change is not hidden by a scale it made itself. (On another H200's fourth run, two changes a series, the same
  // kernel and two one-run slow modes took the tail to 370x and every floor to 100% when this was 4: a 1.26x step
  // passed. From 2: the tail 32x, the floors 5-16.5%, median 6.7%; the A/A runs of that sitting pass in every order.)
  // Left out of its own unit, a change keeps the GPU's heavy tail heavy.
  std::size_t own_unit_min_changes = 2;

  bool operator==(const NoiseModelParams&) const = default;
};
inline constexpr std::size_t kMinNeighbours = 10;

// One series as the model reads it: its main runs before the run judged, oldest first.
struct SeriesRuns {
  const std::vector<double>* values = nullptr;  // ns
  bool excluded = false;  // an open regression's series: its step is not the noise
  // Per value (none: all kept): whether the change into it is left out, the kernel's code having changed there (a
  // commit that slowed a kernel, its revert: code, not noise, whether or not the gate failed it).
  const std::vector<char>* code_changed = nullptr;
};

struct GpuNoiseModel {
  bool ready = false;        // enough changes; otherwise the prior rules
  std::size_t changes = 0;   // run-to-run changes the tail was read from
  std::size_t left_out = 0;  // changes of the runs left out (those that stand out: run_outlier_ratio)
  double shape = 0;          // the Weibull-type tail's exponent as used
  double alpha = 0;          // the Pareto tail's index as used (0: too few changes for one)
  std::size_t hill_rank = 0; // the rank it runs through
  double tail = 0;           // the floor in units of a benchmark's scale (at false_fail_target / judged)
  double suspect = 0;        // the suspect threshold in the same units
  std::vector<double> scale; // per series given: the sd of one run-to-run change (log), its own where larger
  // The largest of the pooled |changes| / scale, largest first (each series' share of the tail capped): as many as
  // the tail and the thresholds are read from, of `changes`. And the rank the tail is read at.
  std::vector<double> sorted;
  std::size_t rank = 0;
};

// Learns the model from the series of one GPU (the runs' series, in the order given); `judged`: how many
// benchmarks the run being judged has with a baseline (the target rate is split over them). The models of the last
// few inputs are remembered (exactly those inputs: every value compared), so judging a run again, or a run whose
// model was learned ahead of it, does not learn it again.
GpuNoiseModel learn_noise_model(const std::vector<SeriesRuns>& series, std::size_t judged,
                                const NoiseModelParams& p = {});
// How many models this process has learned rather than remembered.
std::size_t noise_models_learned();

// The spread of one run's deviations from their baselines, in units of each benchmark's scale, where the GPU's own
// runs have 1 or less: a robust sd (1.4826 MAD around their median, so a step common to all is no spread, taken two
// of its standard errors high), at least 1; 1 with fewer than 20 deviations. A noisier runner's run raises every
// floor by it.
double run_spread(const std::vector<double>& deviations_in_scale);

}  // namespace shaderwatch::detect
