// The single-run gate: a slowdown no noise explains fails the run that brings it, on any branch, from a series'
// second run on. Its floor comes from the GPU's noise model (gpu_noise_model.h) once that has its changes, from the
// prior rules before (a minimum effect, the level's noise or a prior one, the GPU's lone swing). Pure: analysis.h's
// judge calls it over the evidence of run_evidence.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "detection/detect.h"
#include "detection/gpu_noise_model.h"
#include "detection/run_evidence.h"

namespace shaderwatch::analysis {

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
// The GPU's noise model from the run's series (their main runs before the run) and each timed benchmark's noise under
// it (its scale times the run's spread), in the order of run.benchmarks (0 where not modeled).
struct ModelFloors {
  detect::GpuNoiseModel model;
  std::vector<double> noise;
  double spread = 1;
  int excluded = 0;  // series with an open regression, not learned from
};
ModelFloors model_floors(const RunEvidence& run, const GateParams& g = {}, const detect::Params& p = {});
// Learns, ahead of it, the noise model of the GPU's next main run as it will most likely be judged: on the same
// benchmarks, each history one run longer (this run's value), with the open regressions still open and those raised
// at this run (`raised_at_run`: their series) added. detect::learn_noise_model remembers it for that run's judgement,
// which takes it only if its input is exactly that.
void learn_next_noise_model(const RunEvidence& run, const std::vector<std::int64_t>& raised_at_run, const GateParams& g);

}  // namespace shaderwatch::analysis
