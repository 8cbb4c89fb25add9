// The alert lifecycle as pure functions over in-memory values: which alert a correctness result raises, what
// detection's change points do to a series' existing alerts, and which untriaged regressions the evidence
// closes. The Store loads the alerts and points, calls these and writes back what they decide;
// tests/server/alert_lifecycle_test.cpp drives them without a database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detection/detect.h"

namespace shaderwatch::lifecycle {

// ---- correctness: a failing run's alert, from the series' previous main run
// `previous_failed`: absent when the series has no earlier main run. A failure on its first run is a
// correctness_failure, a failure after a pass a correctness_regression; still failing raises nothing (the
// earlier alert stands).
std::optional<detect::AlertKind> correctness_alert(bool failing, std::optional<bool> previous_failed);

// ---- performance: change points against the series' alerts already raised in the detection window
struct ExistingAlert {
  std::int64_t id = 0;
  std::size_t index = 0;  // window index of its boundary (first run of the new level)
  detect::AlertKind kind = detect::AlertKind::Ambiguous;
  bool untriaged = true;  // state new: it still follows the evidence
  bool drift = false;     // raised as a drift (a trend), not a step
  bool invalid = false;   // triaged as no real change: a drift so marked covers nothing
  bool slower = false;    // its change made the series slower
  double before = 0, after = 0;  // its levels (ns; 0: unknown)
  double floor_rel = 0;          // its effect floor
};
// Insert a new alert, update (move, settle) an untriaged one, or record a revert: an improvement that brings the
// series back to the level before a regression is that regression undone, not a new alert to triage.
enum class Action { Insert, Update, Revert };
struct AlertChange {
  Action action = Action::Insert;
  std::size_t change_point = 0;  // index into the change points given
  std::int64_t alert_id = 0;     // the alert updated (Action::Update) or reverted (Action::Revert)
  detect::AlertKind kind = detect::AlertKind::Ambiguous;
};
// One alert per change: a change point within min_segment runs of an alert's boundary is that alert (a
// drift is the same change as every alert on its way). An untriaged alert follows the evidence: it moves to
// the new boundary and an ambiguous change settles either way, while a settled one never goes back to
// ambiguous. A triaged alert is left as people left it. A step inside a drift already alerted, going its
// way, is the drift going on: nothing. A faster step min_segment runs or more after a regression (of any state
// but invalid) that lands back on that regression's old level (within the smaller of its effect floor and half
// its step: a partial fix is no revert) is its revert. Change points
// matching no alert raise one each (and later change points of the same call match those).
std::vector<AlertChange> plan_performance_alerts(const std::vector<detect::ChangePoint>& cps,
                                                 const std::vector<ExistingAlert>& existing, std::size_t min_segment);

// ---- closing by the evidence: an untriaged regression whose series is back on its old level
struct OpenRegression {
  std::int64_t id = 0;
  std::int64_t boundary_ms = 0;  // when its new level began
  detect::Step step;
};
struct RecentRun {
  std::int64_t started_ms = 0;
  double value = 0;
  std::int64_t run_id = 0;
};
struct Closure {
  std::int64_t alert_id = 0;
  std::string note;  // said on the alert
  // The first of the newest runs nearer the old level than the step's (log scale): where the series came back, the
  // revert; 0 where the runs did not say.
  std::int64_t back_since_run = 0;
};
// `recent`: the series' latest main runs, oldest first. A regression is closed where detect::presence over its runs
// since the boundary says Fixed: the same decision the verdict reads (Back or Fixed: the run passes).
std::vector<Closure> regressions_gone(const std::vector<OpenRegression>& open, const std::vector<RecentRun>& recent,
                                      const detect::Params& p = {});

}  // namespace shaderwatch::lifecycle
