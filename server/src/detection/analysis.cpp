#include "detection/analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace shaderwatch::analysis {

const char* to_string(CompareVerdict v) {
  switch (v) {
    case CompareVerdict::Same: return "same";
    case CompareVerdict::Slower: return "slower";
    case CompareVerdict::Faster: return "faster";
    case CompareVerdict::Error: return "error";
    case CompareVerdict::InsufficientRepetitions: return "insufficient_repetitions";
  }
  return "same";
}

CompareResult compare(const RunSide& base, const RunSide& contender, const CompareParams& p) {
  CompareResult r;
  if (base.error || contender.error || std::isnan(base.value) || std::isnan(contender.value)) {
    r.verdict = CompareVerdict::Error;
    return r;
  }
  // compare.py: time change (new - old) / |old|; the U test needs 2+ repetitions a side.
  const double delta = base.value > 0 ? (contender.value - base.value) / base.value : 0;
  r.delta_pct = 100 * delta;
  if (base.reps.size() < 2 || contender.reps.size() < 2) {
    r.verdict = CompareVerdict::InsufficientRepetitions;
    return r;
  }
  r.p_value = stats::mann_whitney_u(base.reps, contender.reps).p;
  r.reliable = base.reps.size() >= 9 && contender.reps.size() >= 9;
  // Repetitions of one process share its conditions, so the U test alone calls a 0.2% offset between
  // two processes significant: the change must also clear the floor.
  for (const auto& s : {base.spread_pct, contender.spread_pct})
    if (s) r.spread_pct = std::max(r.spread_pct.value_or(0.0), *s);
  double floor = std::max(p.min_delta_pct, base.value > 0 ? 100 * p.min_delta_ns / base.value : 0.0);
  if (p.noise_floor && r.spread_pct) floor = std::max(floor, *r.spread_pct);
  r.floor_pct = floor;
  const bool different = *r.p_value < p.alpha && std::abs(100 * delta) >= floor;
  r.verdict = !different ? CompareVerdict::Same : delta > 0 ? CompareVerdict::Slower : CompareVerdict::Faster;
  return r;
}

std::optional<Suspect> suspect(double value, const std::vector<double>& level_runs, const detect::Params& p) {
  if (level_runs.size() < p.min_segment || value <= 0) return std::nullopt;
  std::vector<double> logs;
  for (double v : level_runs) logs.push_back(std::log(std::max(v, 1e-6)));
  Suspect s;
  s.level = stats::median(level_runs);
  s.noise = std::max(detect::run_noise(logs), 1e-5);
  s.floor = std::max(p.min_rel_effect, p.noise_k * s.noise);
  s.delta = value / s.level - 1;
  s.z = std::log(value / s.level) / s.noise;
  s.runs = level_runs.size();
  // kSuspectZ's tail as a t quantile for the noise estimate from these runs (as the detector's tail test): a
  // noise underestimated from a short level tripled the suspects on unchanged series.
  if (s.delta > s.floor && s.z >= stats::tail_threshold(kSuspectZ, level_runs.size())) return s;
  return std::nullopt;
}

double evidence_z(double before, const std::vector<double>& recent, double noise_rel, std::size_t n_before) {
  if (recent.empty() || before <= 0 || noise_rel <= 0) return 0;
  // Runs beyond kOutlierSigmas of the noise from the median of the rest are left out, as the detector leaves
  // outlier runs out: a slow mode's runs (2.5x) among six otherwise pulled the median up to a score of 5.5.
  constexpr double kOutlierSigmas = 4;
  std::vector<double> logs;
  for (double v : recent) logs.push_back(std::log(std::max(v, 1e-9)));
  const double m = stats::median(logs);
  std::vector<double> kept;
  for (double y : logs)
    if (std::fabs(y - m) <= kOutlierSigmas * noise_rel) kept.push_back(y);
  if (kept.empty()) return 0;
  // The variance of the median of k runs taken as pi/2 times the mean's, its large-k limit, where it is 1.19-1.47 for
  // 3-8 runs (stats::median_variance_factor): the gate's alert_z was set with it, and the exact factor listed a +3%
  // step sooner (24 benchmarks x 16 trials: 29 -> 31 of 48 within 10 runs, gauss) but flickered on and off more
  // while the step was there (its later runs listing it 94 -> 89%).
  const double k = static_cast<double>(kept.size()), nb = static_cast<double>(std::max<std::size_t>(n_before, 1));
  const double se = noise_rel * std::sqrt(M_PI / 2 / k + 1 / nb);
  return (stats::median(kept) - std::log(before)) / se;
}

namespace {
// Runs this many of the alert's noise from the median of the runs since its step are a slow mode's (1.5-3.5x), not
// the noise: left out of evidence_noise. A runner 4x noisier moves a run that far in 5% of its runs.
constexpr double kSlowModeSigmas = 8;
// The noise a regression's evidence is weighed with: the larger of the alert's and that of the runs since its step
// (once min_segment are in), from the trimmed RMS of their first differences (detect::diff_noise: a later partial
// fix moves one difference), a slow mode's runs left out. The median absolute first difference it was before is as
// robust but a third as efficient: it put a 3% step's noise at up to 1.9% for 1%, and its verdicts stopped listing
// it. On a runner 4x noisier (350 benchmarks, two trials a noise model) neither fails a verdict, where the alert's
// noise alone failed 14 / 20 / 6 (gauss / reps / twomode). The cost is verdicts on real steps that fail a few runs
// later: of 48 steps of 3% after 50 runs (24 benchmarks x 16 trials), a failing verdict listed 29 under gauss and 24
// under twomode with this estimator, 26 and 22 with the median absolute difference (when that was added, the alert's
// noise alone: 32 of 45 found and 34 of 48).
double evidence_noise(const OpenRegression& r, const detect::Params& p) {
  if (r.since.size() < p.min_segment) return r.noise_rel;
  std::vector<double> logs;
  for (double v : r.since) logs.push_back(std::log(std::max(v, 1e-9)));
  const double m = stats::median(logs);
  std::vector<double> kept;
  for (double y : logs)
    if (std::fabs(y - m) <= kSlowModeSigmas * r.noise_rel) kept.push_back(y);
  return std::max(r.noise_rel, detect::diff_noise(kept));
}

// Before the GPU's noise model and the level's own noise: a slowdown past kSuspectZ of the prior's noise (2% plus
// 300 ns, widened by the runs' own spreads) and the detector's effect floor, judged against the previous runs, is a
// suspect from a series' second run on (a 10% step at 100 us: 10% against 6%).
std::optional<Suspect> cold_suspect(const BenchmarkEvidence& b, double swing, const GateParams& g,
                                    const detect::Params& p) {
  const auto s = prior_floor(b, swing, g, p);
  if (!s || s->against != Baseline::PreviousRuns) return std::nullopt;
  const double z = std::log1p(s->delta) / s->noise;
  if (s->delta <= p.min_rel_effect || z < kSuspectZ) return std::nullopt;
  return Suspect{s->baseline, s->noise, std::expm1(kSuspectZ * s->noise), s->delta, z, s->floor, s->against, s->runs};
}

// The floors' range and median over the benchmarks judged.
void floor_range(const std::vector<double>& floors, Coverage& cov) {
  if (floors.empty()) return;
  cov.floor_min = *std::min_element(floors.begin(), floors.end());
  cov.floor_max = *std::max_element(floors.begin(), floors.end());
  cov.floor_median = stats::median(floors);
}
}  // namespace

namespace {
// One benchmark's part of a verdict: judged on its own (in parallel), then merged in the run's order.
struct BenchmarkJudgement {
  std::vector<std::int64_t> regressions, acknowledged, unconfirmed;
  std::vector<std::int64_t> raised_here;  // the gate's own alerts raised at this run, still present
  std::optional<Slowdown> slowdown;
  std::optional<Suspect> suspect;
  std::optional<double> floor;  // the model's floor it was judged at
  bool held_as_before = false;
};
}  // namespace

RunVerdict judge(const RunEvidence& run, const detect::Params& p, const GateParams& g, const ForEach& for_each) {
  RunVerdict v;
  Coverage& cov = v.coverage;
  cov.swing = run.timings_gated ? lone_swing(run, g) : 0;
  cov.series_runs = swing_series_runs(run, g);
  const ModelFloors rm = run.timings_gated ? model_floors(run, g, p) : ModelFloors{};
  cov.modeled = rm.model.ready;
  cov.model_changes = rm.model.changes;
  cov.model_left_out = rm.model.left_out;
  cov.model_excluded = rm.excluded;
  cov.model_tail = rm.model.tail;
  cov.run_spread = rm.spread;
  const bool prior_gates = cov.series_runs >= g.min_swing_series_runs;
  cov.gated = run.timings_gated && (cov.modeled || prior_gates);
  // The benchmark's time: a slowdown the single-run gate fails on (by the GPU's noise model, else the prior), else a
  // suspect.
  const auto judge_time = [&](const BenchmarkEvidence& b, std::size_t bi, BenchmarkJudgement& out) {
    if (cov.modeled) {
      // Never above the prior's floor where the prior gates: a heavy tail extrapolated from a few hundred changes
      // can reach past what the prior's minimum effect already held (heavy noise: 2.3-3x), and the prior's own
      // blind spot, a lone swing raising every floor, only ever raises it.
      const auto prior = prior_gates ? prior_floor(b, cov.swing, g, p) : std::nullopt;
      auto j = gate_by_model(b, rm.noise[bi], rm.model, prior ? prior->floor : HUGE_VAL, g, p);
      if (!j) return;
      out.floor = j->slowdown.floor;
      // Nothing that ran changed (kernel, driver, runner): one run cannot tell a regression from a slow mode of the
      // GPU (an H200 ran one unchanged kernel 49% slower, every repetition, in one run of seven), so it fails only
      // past the prior's floor; the detector's change point confirms it over the next runs.
      // (The prior's floor as it stands where the prior does not gate yet: a suite too small for it is held to it too.)
      const auto bar = j->fails && b.ran_as_before && !prior ? prior_floor(b, cov.swing, g, p) : prior;
      double gate_floor = j->slowdown.floor;
      if (j->fails && b.ran_as_before && !(bar && j->slowdown.delta > bar->floor)) {
        j->fails = false;
        j->suspect = true;
        out.held_as_before = true;
        gate_floor = bar ? bar->floor : NAN;
      }
      if (j->fails) out.slowdown = j->slowdown;
      else if (j->suspect)
        out.suspect = Suspect{j->slowdown.baseline, j->slowdown.noise, std::expm1(rm.model.suspect * j->slowdown.noise),
                              j->slowdown.delta, std::log1p(j->slowdown.delta) / j->slowdown.noise, gate_floor,
                              j->slowdown.against, j->slowdown.runs};
      return;
    }
    if (const auto s = cov.gated ? gate(b, cov.swing, g, p) : std::nullopt) {
      out.slowdown = *s;
      return;
    }
    if (auto s = suspect(b.value, b.level_runs, p)) {
      if (const auto f = cov.gated ? prior_floor(b, cov.swing, g, p) : std::nullopt) s->gate_floor = f->floor;
      out.suspect = *s;
    } else if (const auto c = cov.gated ? cold_suspect(b, cov.swing, g, p) : std::nullopt) {
      out.suspect = *c;
    }
  };
  // Its open regressions the run still carries, then its time.
  const auto judge_benchmark = [&](std::size_t bi, BenchmarkJudgement& out) {
    const auto& b = run.benchmarks[bi];
    if (run.on_main) {
      for (const auto& r : b.open) {
        // Whether the run still carries the step: the runs since it say (those before it are the old level).
        if (r.before && r.after &&
            detect::presence({*r.before, *r.after, r.floor_rel, r.noise_rel, r.n_after}, {r.since.rbegin(), r.since.rend()}, p)
                    .state != detect::PresenceState::Carried)
          continue;
        if (r.acknowledged) {
          out.acknowledged.push_back(r.alert_id);
          continue;
        }
        // Present, but not yet beyond the gate's score: listed as a suspect of this run until it is.
        // The alert's noise was estimated from the runs either side of its step: as a t quantile for them. The
        // noise the runs since the step show now counts too, where it is larger: a runner that became noisier
        // after the alert was raised (or whose first noisy runs the alert took for a level) fails nothing.
        if (!r.by_gate && r.before && r.noise_rel > 0 && !r.since.empty() &&
            evidence_z(*r.before, r.since, evidence_noise(r, p), r.n_before) <
                stats::tail_threshold(g.alert_z, r.n_before + r.since.size())) {
          out.unconfirmed.push_back(r.alert_id);
          continue;
        }
        // The gate's own alert raised at this run is this run's slowdown, listed as that when the gate fails it again.
        (r.by_gate && r.raised_here ? out.raised_here : out.regressions).push_back(r.alert_id);
      }
    }
    judge_time(b, bi, out);
  };
  std::vector<BenchmarkJudgement> judged(run.benchmarks.size());
  const auto one = [&](std::size_t bi) {
    if (!run.benchmarks[bi].failed && run.timings_gated) judge_benchmark(bi, judged[bi]);
  };
  if (for_each) for_each(run.benchmarks.size(), one);
  else for (std::size_t bi = 0; bi < run.benchmarks.size(); ++bi) one(bi);

  std::vector<double> floors;
  bool any = false;
  for (std::size_t bi = 0; bi < run.benchmarks.size(); ++bi) {
    const auto& b = run.benchmarks[bi];
    if (b.failed) {
      v.correctness.push_back(
          {&b, b.passed_before ? detect::AlertKind::CorrectnessRegression : detect::AlertKind::CorrectnessFailure});
      ++cov.not_timed;
      continue;
    }
    if (!run.timings_gated) {
      ++cov.not_timed;
      continue;
    }
    cov.history_min = any ? std::min(cov.history_min, b.history) : b.history;
    cov.history_max = any ? std::max(cov.history_max, b.history) : b.history;
    any = true;
    if (b.level_runs.empty()) ++cov.first_runs;
    else if (b.level_runs.size() < p.min_segment) ++cov.previous_runs;
    else ++cov.level;
    if (b.history >= p.min_history) ++cov.change_points;
    auto& j = judged[bi];
    v.acknowledged.insert(v.acknowledged.end(), j.acknowledged.begin(), j.acknowledged.end());
    v.unconfirmed.insert(v.unconfirmed.end(), j.unconfirmed.begin(), j.unconfirmed.end());
    v.regressions.insert(v.regressions.end(), j.regressions.begin(), j.regressions.end());
    if (j.floor) floors.push_back(*j.floor);
    cov.held_as_before += j.held_as_before;
    if (j.slowdown) v.slowdowns.push_back({&b, *j.slowdown});
    else v.regressions.insert(v.regressions.end(), j.raised_here.begin(), j.raised_here.end());
    if (j.suspect) v.suspects.push_back({&b, *j.suspect});
  }
  floor_range(floors, cov);
  v.fail = !v.correctness.empty() || !v.regressions.empty() || !v.slowdowns.empty();
  return v;
}

std::optional<NoiseFinding> noise_finding(const std::vector<NoisySeries>& open_noise, std::size_t series) {
  std::vector<double> ratios;
  std::map<std::string, int> since, causes;
  for (const auto& n : open_noise) {
    if (n.ratio <= 1) continue;  // its noise fell: nothing to warn of
    ratios.push_back(n.ratio);
    ++since[n.since_run];
    ++causes[n.cause];
  }
  if (ratios.empty() || static_cast<double>(ratios.size()) < std::max(1.0, kNoisyShare * static_cast<double>(series)))
    return std::nullopt;
  const auto most = [](const std::map<std::string, int>& m) {
    return std::max_element(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  };
  return NoiseFinding{static_cast<int>(ratios.size()), stats::median(ratios), most(since), most(causes)};
}

std::string coverage_line(const Coverage& c, const detect::Params& p, const GateParams& g) {
  const auto runs = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); };
  std::string line = "history: ";
  const int timed = c.first_runs + c.previous_runs + c.level;
  if (timed == 0) return c.not_timed ? "history: timings not judged (correctness only)" : "history: no benchmarks";
  line += c.history_min == c.history_max ? runs(c.history_min) : std::to_string(c.history_min) + "-" + runs(c.history_max);
  std::vector<std::string> parts;
  const auto count = [&](int n, int of) { return n == of ? std::string() : std::to_string(n) + " "; };
  if (c.first_runs) parts.push_back(count(c.first_runs, timed) + "first run" + (c.first_runs == 1 ? "" : "s") + ", not judged");
  if (c.previous_runs)
    parts.push_back(count(c.previous_runs, timed) + "judged against the previous run" + (c.history_max == 1 ? "" : "s"));
  if (c.level) parts.push_back(count(c.level, timed) + "judged against the level");
  for (const auto& s : parts) line += "; " + s;
  if (!c.gated && c.previous_runs + c.level > 0)
    line += "; single-run gate waits for " + std::to_string(g.min_swing_series_runs) + " earlier series-runs (" + std::to_string(c.series_runs) + " so far)";
  const auto pct = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, x < 0.1 ? "%.1f%%" : "%.0f%%", 100 * x);
    return std::string(b);
  };
  if (c.modeled && c.previous_runs + c.level > 0) {
    char tail[32];
    std::snprintf(tail, sizeof tail, "%.0f", c.model_tail);
    line += "; floors " + pct(c.floor_min) + "-" + pct(c.floor_max) + " (median " + pct(c.floor_median) + "): " + tail +
            "x each benchmark's run-to-run noise, learned from " + std::to_string(c.model_changes) + " changes";
    if (c.model_left_out) line += " (" + std::to_string(c.model_left_out) + " changes of outlying runs left out)";
    if (c.model_excluded)
      line += "; " + std::to_string(c.model_excluded) + " series with an open regression not learned from";
    if (c.held_as_before)
      line += "; " + std::to_string(c.held_as_before) + " past " + (c.held_as_before == 1 ? "its floor" : "their floors") +
              " held as suspects: kernel, driver and runner as before (a slow mode, or the harness: the change points "
              "confirm it)";
    if (c.run_spread > 1.05) {
      char spread[64];
      std::snprintf(spread, sizeof spread, "; floors x%.1f for this run's own spread", c.run_spread);
      line += spread;
    }
  } else if (c.gated && c.previous_runs + c.level > 0) {
    line += "; floors from the prior (at least " + pct(g.min_effect) + ") until " + std::to_string(g.model.min_changes) +
            " run-to-run changes (" + std::to_string(c.model_changes) + " so far)";
  }
  line += "; change points " + (c.change_points == 0 ? "from " + runs(p.min_history)
                                                      : (c.change_points == timed ? "on all" : "on " + std::to_string(c.change_points)) +
                                                            " (from " + runs(p.min_history) + ")");
  if (c.not_timed) line += "; " + std::to_string(c.not_timed) + " failed (no time to judge)";
  return line;
}

bool clear_gap(double vx, double vy, double nx, double ny) {
  return std::fabs(std::log(vx / vy)) >= std::max(kMinFlipRel, 2 * std::sqrt(nx * nx + ny * ny));
}

std::vector<Flip> flips(const std::map<std::size_t, GpuVariants>& per_gpu) {
  std::vector<Flip> out;
  for (auto a = per_gpu.begin(); a != per_gpu.end(); ++a)
    for (auto b = std::next(a); b != per_gpu.end(); ++b)
      for (auto x = a->second.begin(); x != a->second.end(); ++x)
        for (auto y = std::next(x); y != a->second.end(); ++y) {
          const auto bx = b->second.find(x->first), by = b->second.find(y->first);
          if (bx == b->second.end() || by == b->second.end()) continue;
          const VariantTime &xa = x->second, &ya = y->second, &xb = bx->second, &yb = by->second;
          const bool x_first_a = xa.value < ya.value, x_first_b = xb.value < yb.value;
          if (x_first_a == x_first_b) continue;
          if (!clear_gap(xa.value, ya.value, xa.noise, ya.noise) || !clear_gap(xb.value, yb.value, xb.noise, yb.noise))
            continue;
          out.push_back({a->first, b->first, x_first_a ? x->first : y->first, x_first_b ? x->first : y->first,
                         std::fabs(xa.value / ya.value - 1), std::fabs(xb.value / yb.value - 1)});
        }
  return out;
}

}  // namespace shaderwatch::analysis
