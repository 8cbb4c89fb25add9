#include "detection/single_run_gate.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/statistics.h"

namespace shaderwatch::analysis {

const char* to_string(Baseline b) {
  switch (b) {
    case Baseline::None: return "none";
    case Baseline::PreviousRuns: return "previous_runs";
    case Baseline::Level: return "level";
  }
  return "none";
}


std::size_t swing_series_runs(const RunEvidence& run, const GateParams& g) {
  std::size_t n = 0;
  for (const auto& b : run.benchmarks)
    if (!b.failed && b.value > 0) n += std::min(b.swing_history.size(), g.swing_runs);
  return n;
}

double lone_swing(const RunEvidence& run, const GateParams& g) {
  double swing = 0;
  for (const auto& b : run.benchmarks) {
    if (b.failed || b.value <= 0 || b.swing_history.empty()) continue;
    const std::size_t n = std::min(b.swing_history.size(), g.swing_runs);
    std::vector<double> seq(b.swing_history.end() - static_cast<std::ptrdiff_t>(n), b.swing_history.end());
    const bool from_first = b.history <= seq.size();  // seq starts at the series' first run
    seq.push_back(b.value);
    // Each run's SPIR-V (empty: not named). A run whose kernel's code differs from the next's moved with its code (a
    // slowdown and its revert): no swing of the GPU's.
    std::vector<std::string> code;
    if (b.swing_spirv.size() == b.swing_history.size())
      code.assign(b.swing_spirv.end() - static_cast<std::ptrdiff_t>(n), b.swing_spirv.end());
    code.resize(seq.size() - 1);
    code.push_back(b.spirv);
    const auto code_changed = [&](std::size_t i, std::size_t j) {
      return !code[i].empty() && !code[j].empty() && code[i] != code[j];
    };
    for (std::size_t i = 0; i + 1 < seq.size(); ++i) {
      if (seq[i] <= 0 || seq[i + 1] <= 0 || code_changed(i, i + 1)) continue;
      double height = std::log(seq[i] / seq[i + 1]);
      if (i > 0 && seq[i - 1] > 0) {
        if (code_changed(i - 1, i)) continue;
        height = std::min(height, std::log(seq[i] / seq[i - 1]));
      } else if (!from_first) {
        continue;
      }
      swing = std::max(swing, height);
    }
  }
  return swing;
}

namespace {
// What a benchmark's value is judged against: the median of its level's runs (min_segment or more) or of its
// previous runs (the cold-start rule); nothing on its first run.
std::optional<Slowdown> against_baseline(const BenchmarkEvidence& b, const detect::Params& p) {
  const auto& runs = b.level_runs;
  if (runs.empty() || b.value <= 0) return std::nullopt;
  Slowdown s;
  s.against = runs.size() >= p.min_segment ? Baseline::Level : Baseline::PreviousRuns;
  s.runs = runs.size();
  s.baseline = stats::median(runs);
  if (s.baseline <= 0) return std::nullopt;
  s.delta = b.value / s.baseline - 1;
  return s;
}
}  // namespace

std::optional<ModelJudgement> gate_by_model(const BenchmarkEvidence& b, double noise, const detect::GpuNoiseModel& m,
                                            double cap, const GateParams& g, const detect::Params& p) {
  const auto s = against_baseline(b, p);
  if (!s) return std::nullopt;
  ModelJudgement j{*s};
  j.slowdown.noise = noise;
  const double floor = std::min(std::max(std::log1p(g.model.min_effect), m.tail * noise), std::log1p(cap));
  j.slowdown.floor = std::expm1(floor);
  const double y = std::log(b.value / s->baseline);
  j.fails = y > floor;
  j.suspect = !j.fails && y > m.suspect * noise;
  return j;
}

std::optional<Slowdown> prior_floor(const BenchmarkEvidence& b, double swing, const GateParams& g,
                                    const detect::Params& p) {
  auto base = against_baseline(b, p);
  if (!base) return std::nullopt;
  Slowdown& s = *base;
  const auto& runs = b.level_runs;
  double noise_floor = 0;  // log
  if (s.against == Baseline::Level) {
    std::vector<double> logs;
    for (double v : runs) logs.push_back(std::log(std::max(v, 1e-6)));
    s.noise = std::max(detect::run_noise(logs), 1e-5);
    noise_floor = stats::tail_threshold(g.z, runs.size()) * s.noise;
  } else {
    // No run-to-run noise to estimate yet: the prior, widened by the spread each run carries.
    const double prior = std::hypot(g.prior_noise_rel, g.prior_noise_ns / s.baseline);
    double base_spread = 0;
    for (std::size_t i = 0; i < runs.size() && i < b.level_spreads.size(); ++i)
      base_spread = std::max(base_spread, b.level_spreads[i]);
    const double own = b.spread;
    s.noise = std::sqrt(prior * prior + own * own + base_spread * base_spread);
    noise_floor = g.z * s.noise;
  }
  s.floor = std::expm1(std::max({std::log1p(g.min_effect), noise_floor, g.swing_power * swing}));
  return s;
}

std::optional<Slowdown> gate(const BenchmarkEvidence& b, double swing, const GateParams& g, const detect::Params& p) {
  const auto s = prior_floor(b, swing, g, p);
  if (s && b.value / s->baseline - 1 > s->floor) return s;
  return std::nullopt;
}

namespace {

// What the GPU's noise model learns from: the run's timed series (their main runs before it) in the order of
// run.benchmarks, each with the changes of its kernel's code it leaves out.
struct ModelInput {
  std::vector<detect::SeriesRuns> series;
  std::vector<std::size_t> index;  // run.benchmarks' index of each series given
  std::vector<std::vector<char>> code_changed;  // per benchmark, per swing_history run
  std::size_t judged = 0;  // benchmarks with a level
  int excluded = 0;
};
ModelInput model_input(const RunEvidence& run) {
  ModelInput in;
  in.code_changed.resize(run.benchmarks.size());
  for (std::size_t i = 0; i < run.benchmarks.size(); ++i) {
    const auto& b = run.benchmarks[i];
    if (b.failed || b.value <= 0) continue;
    // An open regression's step is not the noise (on main, where the run's open regressions are loaded); one raised
    // at this very run (by this run's gate, at ingest) has no step in the history yet.
    const bool excluded = std::any_of(b.open.begin(), b.open.end(), [](const auto& r) { return !r.raised_here; });
    in.excluded += excluded;
    // Where the kernel's SPIR-V changed from one run to the next (both named), that change is not the noise.
    auto& code = in.code_changed[i];
    code.assign(b.swing_history.size(), 0);
    for (std::size_t j = 1; j < b.swing_spirv.size() && j < code.size(); ++j)
      code[j] = !b.swing_spirv[j].empty() && !b.swing_spirv[j - 1].empty() && b.swing_spirv[j] != b.swing_spirv[j - 1];
    in.series.push_back({&b.swing_history, excluded, &code});
    in.index.push_back(i);
    in.judged += !b.level_runs.empty();
  }
  return in;
}

}  // namespace

void learn_next_noise_model(const RunEvidence& run, const std::vector<std::int64_t>& raised_at_run, const GateParams& g) {
  if (!run.on_main || !run.timings_gated) return;
  RunEvidence next;
  for (const auto& b : run.benchmarks) {
    auto& n = next.benchmarks.emplace_back();
    n.failed = b.failed;
    n.value = b.value;
    n.swing_history = b.swing_history;
    n.swing_spirv = b.swing_spirv;
    if (!b.failed && b.value > 0) {  // its point is a main run with a value: the next run's history holds it
      if (n.swing_history.size() >= g.swing_runs) {
        n.swing_history.erase(n.swing_history.begin());
        n.swing_spirv.erase(n.swing_spirv.begin());
      }
      n.swing_history.push_back(b.value);
      n.swing_spirv.push_back(b.spirv);
    }
    // Open regressions stay open, and the ones raised at this run are the next run's open regressions.
    const bool open = !b.open.empty() || std::find(raised_at_run.begin(), raised_at_run.end(), b.series_id) != raised_at_run.end();
    if (open) n.open.push_back({});
  }
  const ModelInput in = model_input(next);
  detect::learn_noise_model(in.series, in.judged, g.model);
}

ModelFloors model_floors(const RunEvidence& run, const GateParams& g, const detect::Params& p) {
  ModelFloors rm;
  rm.noise.assign(run.benchmarks.size(), 0);
  const ModelInput in = model_input(run);
  const auto& index = in.index;
  rm.excluded = in.excluded;
  rm.model = detect::learn_noise_model(in.series, in.judged, g.model);
  if (!rm.model.ready) return rm;
  std::vector<double> deviations;
  for (std::size_t k = 0; k < index.size(); ++k) {
    const auto s = against_baseline(run.benchmarks[index[k]], p);
    if (s) deviations.push_back(std::log1p(s->delta) / rm.model.scale[k]);
  }
  rm.spread = detect::run_spread(deviations);
  for (std::size_t k = 0; k < index.size(); ++k) rm.noise[index[k]] = rm.model.scale[k] * rm.spread;
  return rm;
}

}  // namespace shaderwatch::analysis
