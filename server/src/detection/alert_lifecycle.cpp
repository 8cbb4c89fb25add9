#include "detection/alert_lifecycle.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shaderwatch::lifecycle {

std::optional<detect::AlertKind> correctness_alert(bool failing, std::optional<bool> previous_failed) {
  if (!failing) return std::nullopt;
  if (!previous_failed) return detect::AlertKind::CorrectnessFailure;
  if (!*previous_failed) return detect::AlertKind::CorrectnessRegression;
  return std::nullopt;
}

namespace {

detect::AlertKind kind_of(detect::ChangeKind o) {
  return detect::alert_kind(o).value_or(detect::AlertKind::Ambiguous);
}

// Whether change point cp is the change alert e was raised for.
bool same_change(const detect::ChangePoint& cp, const ExistingAlert& e, std::size_t min_segment) {
  const auto at = static_cast<std::ptrdiff_t>(cp.index), idx = static_cast<std::ptrdiff_t>(e.index);
  const auto seg = static_cast<std::ptrdiff_t>(min_segment);
  return cp.trend ? idx + seg >= at : std::abs(idx - at) < seg;
}

// The regression change point cp undoes, if any: the latest before it whose old level cp returns to.
const ExistingAlert* reverted_by(const detect::ChangePoint& cp, const std::vector<ExistingAlert>& existing,
                                 std::size_t min_segment) {
  if (cp.trend || cp.delta_rel >= 0 || cp.after <= 0) return nullptr;
  const ExistingAlert* found = nullptr;
  for (const auto& e : existing) {
    if (e.kind != detect::AlertKind::Regression || e.invalid || e.before <= 0 || e.after <= e.before) continue;
    if (e.index + min_segment > cp.index || (found && found->index > e.index)) continue;
    const double near = std::min(0.5 * std::log(e.after / e.before), std::log1p(e.floor_rel));
    if (std::fabs(std::log(cp.after / e.before)) <= near) found = &e;
  }
  return found;
}

}  // namespace

std::vector<AlertChange> plan_performance_alerts(const std::vector<detect::ChangePoint>& cps,
                                                 const std::vector<ExistingAlert>& existing, std::size_t min_segment) {
  std::vector<AlertChange> plan;
  std::vector<ExistingAlert> known = existing;
  for (std::size_t i = 0; i < cps.size(); ++i) {
    const auto& cp = cps[i];
    const bool slower = cp.delta_rel > 0;
    const bool inside_drift = !cp.trend && std::any_of(existing.begin(), existing.end(), [&](const auto& e) {
      return e.drift && !e.invalid && e.index <= cp.index && e.slower == slower;
    });
    if (inside_drift) continue;
    if (const ExistingAlert* r = reverted_by(cp, existing, min_segment)) {
      plan.push_back({Action::Revert, i, r->id, detect::AlertKind::Improvement});
      continue;
    }
    bool matched = false;
    for (const auto& e : known) {
      if (!same_change(cp, e, min_segment)) continue;
      matched = true;
      if (e.id <= 0 || !e.untriaged) continue;  // raised by this call, or triaged
      const auto found = kind_of(cp.outcome);
      const auto kind = found == detect::AlertKind::Ambiguous ? e.kind : found;
      if (e.index == cp.index && kind == e.kind) continue;
      plan.push_back({Action::Update, i, e.id, kind});
    }
    if (matched) continue;
    plan.push_back({Action::Insert, i, 0, kind_of(cp.outcome)});
    known.push_back({0, cp.index, kind_of(cp.outcome), true, cp.trend, false, slower});
  }
  return plan;
}

std::vector<Closure> regressions_gone(const std::vector<OpenRegression>& open, const std::vector<RecentRun>& recent,
                                      const detect::Params& p) {
  std::vector<Closure> closed;
  for (const auto& r : open) {
    std::vector<double> since;  // the runs from the step's boundary on
    for (const auto& run : recent)
      if (run.started_ms >= r.boundary_ms) since.push_back(run.value);
    const detect::Presence presence = detect::presence(r.step, since, p);
    if (presence.state != detect::PresenceState::Fixed) continue;
    const std::vector<double> newest(since.end() - static_cast<std::ptrdiff_t>(p.present_points), since.end());
    const detect::Step& step = presence.level;
    char note[256];
    std::snprintf(note, sizeof note,
                  "closed by the evidence: the last %zu runs (median %.0f ns) are back near the old level %.0f ns "
                  "(the step went to %.0f ns)",
                  newest.size(), stats::median(newest), step.before, step.after);
    const double middle = 0.5 * (std::log(step.before) + std::log(step.after));
    const double direction = step.after > step.before ? 1 : -1;
    std::int64_t back_since = 0;
    for (auto it = recent.rbegin(); it != recent.rend() && it->started_ms >= r.boundary_ms && it->value > 0 &&
                                    direction * (std::log(it->value) - middle) < 0;
         ++it)
      back_since = it->run_id;
    closed.push_back({r.id, note, back_since});
  }
  return closed;
}

}  // namespace shaderwatch::lifecycle
