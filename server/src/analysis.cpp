#include "shaderwatch/analysis.hpp"

#include <algorithm>
#include <cmath>

namespace sw::analysis {

const char* to_string(CompareVerdict v) {
  switch (v) {
    case CompareVerdict::same: return "same";
    case CompareVerdict::slower: return "slower";
    case CompareVerdict::faster: return "faster";
    case CompareVerdict::error: return "error";
    case CompareVerdict::insufficient_repetitions: return "insufficient_repetitions";
  }
  return "same";
}

CompareResult compare(const RunSide& base, const RunSide& contender, const CompareParams& p) {
  CompareResult r;
  if (base.error || contender.error || std::isnan(base.value) || std::isnan(contender.value)) {
    r.verdict = CompareVerdict::error;
    return r;
  }
  // compare.py: time change (new - old) / |old|; the U test needs 2+ repetitions a side.
  const double delta = base.value > 0 ? (contender.value - base.value) / base.value : 0;
  r.delta_pct = 100 * delta;
  if (base.reps.size() < 2 || contender.reps.size() < 2) {
    r.verdict = CompareVerdict::insufficient_repetitions;
    return r;
  }
  r.p_value = detect::mann_whitney_u(base.reps, contender.reps).p;
  r.reliable = base.reps.size() >= 9 && contender.reps.size() >= 9;
  // Repetitions of one process share its conditions, so the U test alone calls a 0.2% offset between
  // two processes significant: the change must also clear the floor.
  for (const auto& s : {base.spread_pct, contender.spread_pct})
    if (s) r.spread_pct = std::max(r.spread_pct.value_or(0.0), *s);
  double floor = std::max(p.min_delta_pct, base.value > 0 ? 100 * p.min_delta_ns / base.value : 0.0);
  if (p.noise_floor && r.spread_pct) floor = std::max(floor, *r.spread_pct);
  r.floor_pct = floor;
  const bool different = *r.p_value < p.alpha && std::abs(100 * delta) >= floor;
  r.verdict = !different ? CompareVerdict::same : delta > 0 ? CompareVerdict::slower : CompareVerdict::faster;
  return r;
}

std::optional<Suspect> suspect(double value, const std::vector<double>& level_runs, const detect::Params& p) {
  if (level_runs.size() < p.min_segment || value <= 0) return std::nullopt;
  std::vector<double> logs;
  for (double v : level_runs) logs.push_back(std::log(std::max(v, 1e-6)));
  Suspect s;
  s.level = detect::median(level_runs);
  s.noise = std::max(detect::run_noise(logs), 1e-5);
  s.floor = std::max(p.min_rel_effect, p.noise_k * s.noise);
  s.delta = value / s.level - 1;
  s.z = std::log(value / s.level) / s.noise;
  // kSuspectZ's tail as a t quantile for the noise estimate from these runs (as the detector's tail test): a
  // noise underestimated from a short level tripled the suspects on unchanged series.
  if (s.delta > s.floor && s.z >= detect::tail_threshold(kSuspectZ, level_runs.size())) return s;
  return std::nullopt;
}

RunVerdict judge(const RunEvidence& run, const detect::Params& p) {
  RunVerdict v;
  for (const auto& b : run.benchmarks) {
    if (b.failed) {
      v.correctness.push_back(
          {&b, b.passed_before ? detect::AlertKind::correctness_regression : detect::AlertKind::correctness_failure});
      continue;
    }
    if (run.on_main) {
      for (const auto& r : b.open) {
        if (r.before && r.after && !detect::still_present(*r.before, *r.after, r.floor_rel, b.recent, p)) continue;
        (r.acknowledged ? v.acknowledged : v.regressions).push_back(r.alert_id);
      }
    }
    if (const auto s = suspect(b.value, b.level_runs, p)) v.suspects.push_back({&b, *s});
  }
  v.fail = !v.correctness.empty() || !v.regressions.empty();
  return v;
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

}  // namespace sw::analysis
