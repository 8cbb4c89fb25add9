// The alert lifecycle as pure functions (shaderwatch/alert_lifecycle.hpp), without a database.
#include <gtest/gtest.h>

#include "shaderwatch/alert_lifecycle.hpp"

namespace l = sw::lifecycle;
using sw::detect::AlertKind;
using sw::detect::ChangePoint;
using sw::detect::Outcome;

namespace {
ChangePoint step(std::size_t index, Outcome outcome, double delta = 0.03, bool trend = false) {
  ChangePoint cp;
  cp.index = index;
  cp.outcome = outcome;
  cp.delta_rel = outcome == Outcome::improvement ? -delta : delta;
  cp.trend = trend;
  return cp;
}
l::ExistingAlert alert(std::int64_t id, std::size_t index, AlertKind kind, bool untriaged = true) {
  l::ExistingAlert e;
  e.id = id;
  e.index = index;
  e.kind = kind;
  e.untriaged = untriaged;
  e.slower = kind != AlertKind::improvement;
  return e;
}
}  // namespace

TEST(AlertLifecycle, CorrectnessAlertFollowsThePreviousRun) {
  EXPECT_FALSE(l::correctness_alert(false, std::nullopt));
  EXPECT_FALSE(l::correctness_alert(false, false));
  EXPECT_EQ(l::correctness_alert(true, std::nullopt), AlertKind::correctness_failure) << "fails on its first run";
  EXPECT_EQ(l::correctness_alert(true, false), AlertKind::correctness_regression) << "passed before";
  EXPECT_FALSE(l::correctness_alert(true, true)) << "still failing: the earlier alert stands";
}

TEST(AlertLifecycle, ANewChangeRaisesOneAlertAndLaterOnesOfTheSameCallMatchIt) {
  const auto plan = l::plan_performance_alerts({step(30, Outcome::regression), step(33, Outcome::regression)}, {}, 6);
  ASSERT_EQ(plan.size(), 1u) << "two change points 3 runs apart are one change";
  EXPECT_EQ(plan[0].action, l::Action::insert);
  EXPECT_EQ(plan[0].change_point, 0u);
  EXPECT_EQ(plan[0].kind, AlertKind::regression);
  // 6 runs apart: two changes.
  EXPECT_EQ(l::plan_performance_alerts({step(30, Outcome::regression), step(36, Outcome::improvement)}, {}, 6).size(),
            2u);
}

TEST(AlertLifecycle, AnUntriagedAlertFollowsTheEvidenceAndNeverGoesBackToAmbiguous) {
  // Moved by two runs: updated in place, no new alert.
  auto plan = l::plan_performance_alerts({step(32, Outcome::regression)}, {alert(7, 30, AlertKind::regression)}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].action, l::Action::update);
  EXPECT_EQ(plan[0].alert_id, 7);
  // Same place and kind: nothing to do.
  EXPECT_TRUE(l::plan_performance_alerts({step(30, Outcome::regression)}, {alert(7, 30, AlertKind::regression)}, 6)
                  .empty());
  // An ambiguous change settles as a regression...
  plan = l::plan_performance_alerts({step(30, Outcome::regression)}, {alert(7, 30, AlertKind::ambiguous)}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].kind, AlertKind::regression);
  // ...but a regression seen as ambiguous on a later run stays a regression.
  EXPECT_TRUE(l::plan_performance_alerts({step(30, Outcome::ambiguous)}, {alert(7, 30, AlertKind::regression)}, 6)
                  .empty());
}

TEST(AlertLifecycle, ATriagedAlertIsLeftAsPeopleLeftIt) {
  const auto triaged = alert(7, 30, AlertKind::ambiguous, false);
  EXPECT_TRUE(l::plan_performance_alerts({step(32, Outcome::regression)}, {triaged}, 6).empty())
      << "neither updated nor raised again";
}

TEST(AlertLifecycle, ALaterChangeNeverReplacesAnEarlierAlert) {
  // A regression at 20, then an improvement at 40: the improvement is an alert of its own; the regression's
  // alert is not touched (the verdict still judges it by its own levels).
  const auto plan =
      l::plan_performance_alerts({step(20, Outcome::regression), step(40, Outcome::improvement)},
                                 {alert(7, 20, AlertKind::regression)}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].action, l::Action::insert);
  EXPECT_EQ(plan[0].kind, AlertKind::improvement);
}

TEST(AlertLifecycle, ADriftIsOneAlert) {
  auto drift = alert(9, 10, AlertKind::regression);
  drift.drift = true;
  // Steps going the drift's way after its start are the drift going on.
  EXPECT_TRUE(l::plan_performance_alerts({step(25, Outcome::regression)}, {drift}, 6).empty());
  // A step the other way is a change of its own.
  EXPECT_EQ(l::plan_performance_alerts({step(25, Outcome::improvement)}, {drift}, 6).size(), 1u);
  // A drift found later takes over the staircase alert raised on its way (updated, not a second alert).
  const auto plan = l::plan_performance_alerts({step(12, Outcome::regression, 0.05, true)},
                                               {alert(7, 16, AlertKind::regression)}, 6);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].action, l::Action::update);
  // A drift triaged as invalid covers nothing.
  drift.invalid = true;
  drift.untriaged = false;
  EXPECT_EQ(l::plan_performance_alerts({step(25, Outcome::regression)}, {drift}, 6).size(), 1u);
}

TEST(AlertLifecycle, ARegressionBackOnItsOldLevelIsClosedByTheEvidence) {
  const l::OpenRegression r{5, 1000, 100.0, 103.0, 0.015};
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
