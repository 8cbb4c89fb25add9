// The alert lifecycle as pure functions (shaderwatch/alert_lifecycle.hpp), without a database.
#include <gtest/gtest.h>

#include "detection/alert_lifecycle.h"

namespace l = shaderwatch::lifecycle;
using shaderwatch::detect::AlertKind;
using shaderwatch::detect::ChangePoint;
using shaderwatch::detect::ChangeKind;

namespace {
ChangePoint step(std::size_t index, ChangeKind outcome, double delta = 0.03, bool trend = false) {
  ChangePoint cp;
  cp.index = index;
  cp.outcome = outcome;
  cp.delta_rel = outcome == ChangeKind::Improvement ? -delta : delta;
  cp.trend = trend;
  return cp;
}
l::ExistingAlert alert(std::int64_t id, std::size_t index, AlertKind kind, bool untriaged = true) {
  l::ExistingAlert e;
  e.id = id;
  e.index = index;
  e.kind = kind;
  e.untriaged = untriaged;
  e.slower = kind != AlertKind::Improvement;
  return e;
}
}  // namespace

TEST(AlertLifecycle, CorrectnessAlertFollowsThePreviousRun) {
  EXPECT_FALSE(l::correctness_alert(false, std::nullopt));
  EXPECT_FALSE(l::correctness_alert(false, false));
  EXPECT_EQ(l::correctness_alert(true, std::nullopt), AlertKind::CorrectnessFailure) << "fails on its first run";
  EXPECT_EQ(l::correctness_alert(true, false), AlertKind::CorrectnessRegression) << "passed before";
  EXPECT_FALSE(l::correctness_alert(true, true)) << "still failing: the earlier alert stands";
}

TEST(AlertLifecycle, ANewChangeRaisesOneAlertAndLaterOnesOfTheSameCallMatchIt) {
  const auto plan = l::plan_performance_alerts({step(30, ChangeKind::Regression), step(33, ChangeKind::Regression)}, {}, 6);
  ASSERT_EQ(plan.size(), 1u) << "two change points 3 runs apart are one change";
  EXPECT_EQ(plan[0].action, l::Action::Insert);
  EXPECT_EQ(plan[0].change_point, 0u);
  EXPECT_EQ(plan[0].kind, AlertKind::Regression);
  // 6 runs apart: two changes.
  EXPECT_EQ(l::plan_performance_alerts({step(30, ChangeKind::Regression), step(36, ChangeKind::Improvement)}, {}, 6).size(),
            2u);
}

TEST(AlertLifecycle, AnUntriagedAlertFollowsTheEvidenceAndNeverGoesBackToAmbiguous) {
  // Moved by two runs: updated in place, no new alert.
  auto plan = l::plan_performance_alerts({step(32, ChangeKind::Regression)}, {alert(7, 30, AlertKind::Regression)}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].action, l::Action::Update);
  EXPECT_EQ(plan[0].alert_id, 7);
  // Same place and kind: nothing to do.
  EXPECT_TRUE(l::plan_performance_alerts({step(30, ChangeKind::Regression)}, {alert(7, 30, AlertKind::Regression)}, 6)
                  .empty());
  // An ambiguous change settles as a regression...
  plan = l::plan_performance_alerts({step(30, ChangeKind::Regression)}, {alert(7, 30, AlertKind::Ambiguous)}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].kind, AlertKind::Regression);
  // ...but a regression seen as ambiguous on a later run stays a regression.
  EXPECT_TRUE(l::plan_performance_alerts({step(30, ChangeKind::Ambiguous)}, {alert(7, 30, AlertKind::Regression)}, 6)
                  .empty());
}

TEST(AlertLifecycle, ATriagedAlertIsLeftAsPeopleLeftIt) {
  const auto triaged = alert(7, 30, AlertKind::Ambiguous, false);
  EXPECT_TRUE(l::plan_performance_alerts({step(32, ChangeKind::Regression)}, {triaged}, 6).empty())
      << "neither updated nor raised again";
}

TEST(AlertLifecycle, ALaterChangeNeverReplacesAnEarlierAlert) {
  // A regression at 20, then an improvement at 40: the improvement is an alert of its own; the regression's
  // alert is not touched (the verdict still judges it by its own levels).
  const auto plan =
      l::plan_performance_alerts({step(20, ChangeKind::Regression), step(40, ChangeKind::Improvement)},
                                 {alert(7, 20, AlertKind::Regression)}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].action, l::Action::Insert);
  EXPECT_EQ(plan[0].kind, AlertKind::Improvement);
}

TEST(AlertLifecycle, ADriftIsOneAlert) {
  auto drift = alert(9, 10, AlertKind::Regression);
  drift.drift = true;
  // Steps going the drift's way after its start are the drift going on.
  EXPECT_TRUE(l::plan_performance_alerts({step(25, ChangeKind::Regression)}, {drift}, 6).empty());
  // A step the other way is a change of its own.
  EXPECT_EQ(l::plan_performance_alerts({step(25, ChangeKind::Improvement)}, {drift}, 6).size(), 1u);
  // A drift found later takes over the staircase alert raised on its way (updated, not a second alert).
  const auto plan = l::plan_performance_alerts({step(12, ChangeKind::Regression, 0.05, true)},
                                               {alert(7, 16, AlertKind::Regression)}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].action, l::Action::Update);
  // A drift triaged as invalid covers nothing.
  drift.invalid = true;
  drift.untriaged = false;
  EXPECT_EQ(l::plan_performance_alerts({step(25, ChangeKind::Regression)}, {drift}, 6).size(), 1u);
}

TEST(AlertLifecycle, ARegressionBackOnItsOldLevelIsClosedByTheEvidence) {
  const l::OpenRegression r{5, 1000, {100.0, 103.0, 0.015, 0.005, 12}};
  std::vector<l::RecentRun> back, still;
  for (int i = 0; i < 6; ++i) {
    back.push_back({2000 + i, 100.2});
    still.push_back({2000 + i, 102.8});
  }
  const auto closed = l::regressions_gone({r}, back);
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].alert_id, 5);
  EXPECT_NE(closed[0].note.find("closed by the evidence"), std::string::npos) << closed[0].note;
  EXPECT_TRUE(l::regressions_gone({r}, still).empty()) << "still slow: stays open";
  // Runs from before the step do not count: the latest six must all follow the boundary.
  back[0].started_ms = 500;
  EXPECT_TRUE(l::regressions_gone({r}, back).empty());
  // Fewer than present_points runs: no evidence yet.
  EXPECT_TRUE(l::regressions_gone({r}, {back.begin() + 1, back.end()}).empty());
}

TEST(AlertLifecycle, AStepsLevelIsMeasuredOnItsRunsSince) {
  // Raised at +6% on its first 6 runs (1% noise); its 20 runs since sit at +3%, then six at +0.8%. Against the
  // alert's level the six are 8 standard errors back (closed); against the 20 runs' level, 4.3, short of fixed_z.
  const l::OpenRegression r{9, 1000, {100.0, 106.0, 0.01, 0.01, 6}};
  std::vector<l::RecentRun> runs;
  for (int i = 0; i < 6; ++i) runs.push_back({2000 + i, 100.8});
  EXPECT_EQ(l::regressions_gone({r}, runs).size(), 1u);
  for (int i = 0; i < 20; ++i) runs.insert(runs.begin(), {1999 - i, 103.0});
  EXPECT_TRUE(l::regressions_gone({r}, runs).empty());
  EXPECT_NEAR(shaderwatch::detect::remeasured(r.step, std::vector<double>(20, 103.0)).after, 103.0, 1e-9);
  EXPECT_EQ(shaderwatch::detect::remeasured(r.step, std::vector<double>(5, 103.0)).after, 106.0) << "fewer runs than the alert's";
}

TEST(AlertLifecycle, ASmallRegressionStillThereIsNotClosedByAFewLowRuns) {
  // +1.5% in 1% noise: six runs at +0.3% are within the half step of the old level, but only 1.8 standard errors
  // below the new one: not the confidence it took to confirm the step.
  const l::OpenRegression r{7, 1000, {100.0, 101.5, 0.015, 0.01, 6}};
  std::vector<l::RecentRun> low;
  for (int i = 0; i < 6; ++i) low.push_back({2000 + i, 100.3});
  EXPECT_TRUE(l::regressions_gone({r}, low).empty());
}

TEST(AlertLifecycle, AnImprovementBackToARegressionsOldLevelIsItsRevert) {
  // +4% at window index 20 (floor 1.5%); a faster step at 32 back to the old level is that regression undone:
  // no new alert to triage. A partial fix (half the step won back) is an improvement of its own.
  auto reg = alert(9, 20, AlertKind::Regression, false);  // already closed by the evidence: still its revert
  reg.before = 100;
  reg.after = 104;
  reg.floor_rel = 0.015;
  ChangePoint back;
  back.index = 32;
  back.before = 104;
  back.after = 100.4;
  back.delta_rel = -0.035;
  back.outcome = ChangeKind::Improvement;
  auto plan = l::plan_performance_alerts({back}, {reg}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].action, l::Action::Revert);
  EXPECT_EQ(plan[0].alert_id, 9);
  ChangePoint partial = back;
  partial.after = 102;
  partial.delta_rel = -0.019;
  plan = l::plan_performance_alerts({partial}, {reg}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].action, l::Action::Insert);
  EXPECT_EQ(plan[0].kind, AlertKind::Improvement);
  // Fewer than min_segment runs after the regression's boundary: the same change, not its revert.
  ChangePoint soon = back;
  soon.index = 23;
  plan = l::plan_performance_alerts({soon}, {reg}, 6);
  EXPECT_TRUE(plan.empty() || plan[0].action != l::Action::Revert);
}
