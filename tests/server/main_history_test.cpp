// The newest main points held in memory (storage/main_history.h): what it answers from them, and when it says it
// cannot (then the verdict reads the database).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "storage/main_history.h"

namespace {

using shaderwatch::MainHistory;
using shaderwatch::MainPoint;

MainPoint at(std::int64_t run) { return MainPoint{run * 1000, run, static_cast<double>(run), 0.01, "spirv"}; }

std::vector<MainPoint> series_of(std::int64_t first, std::int64_t last) {
  std::vector<MainPoint> v;
  for (auto r = first; r <= last; ++r) v.push_back(at(r));
  return v;
}

// The runs given for series 1 before run `before`, newest first; {-1} where the history cannot say.
std::vector<std::int64_t> newest(const MainHistory& h, std::int64_t before, std::size_t limit, bool inclusive = false) {
  std::map<std::int64_t, int> series = {{1, 0}};
  std::vector<std::int64_t> runs;
  if (!h.visit_newest_before(series, before * 1000, before, inclusive, limit,
                             [&](const auto&, const MainPoint& p) { runs.push_back(p.run_id); }))
    return {-1};
  return runs;
}

}  // namespace

TEST(MainHistory, AnswersFromWhatItHoldsOnlyWhereThatIsTheWholeAnswer) {
  MainHistory h;
  EXPECT_EQ(newest(h, 10, 3), std::vector<std::int64_t>{-1}) << "nothing held";
  h.hold(*h.generation(), {{1, series_of(1, 9)}}, true);
  EXPECT_EQ(newest(h, 10, 3), (std::vector<std::int64_t>{9, 8, 7}));
  EXPECT_EQ(newest(h, 9, 3, true), (std::vector<std::int64_t>{9, 8, 7}));
  EXPECT_EQ(newest(h, 3, 5), (std::vector<std::int64_t>{2, 1})) << "the series' whole history has two before run 3";
  // Held, but not the whole history: fewer points than asked is no answer.
  h.hold(*h.generation(), {{1, series_of(5, 9)}}, false);
  EXPECT_EQ(newest(h, 10, 5), (std::vector<std::int64_t>{9, 8, 7, 6, 5}));
  EXPECT_EQ(newest(h, 10, 6), std::vector<std::int64_t>{-1});
}

TEST(MainHistory, FollowsTheWriterAndNeverAnswersForASeriesBeingWritten) {
  MainHistory h;
  h.hold(*h.generation(), {{1, series_of(1, 5)}}, true);
  const MainHistory::Added seven = {{1, at(7)}}, six = {{1, at(6)}}, other = {{2, at(7)}};
  h.begin_write(seven);
  EXPECT_EQ(newest(h, 100, 2), std::vector<std::int64_t>{-1}) << "its commit may be visible already";
  EXPECT_FALSE(h.generation()) << "a read now could miss the write: not to be held";
  h.end_write(seven);
  EXPECT_EQ(newest(h, 100, 2), (std::vector<std::int64_t>{7, 5}));
  h.begin_write(other);
  EXPECT_EQ(newest(h, 100, 2), (std::vector<std::int64_t>{7, 5})) << "another series' write does not matter";
  h.abandon_write(other);
  // A run posted late (started before the newest) goes in its place; the same point twice once.
  h.begin_write(six);
  h.end_write(six);
  h.begin_write(six);
  h.end_write(six);
  EXPECT_EQ(newest(h, 100, 3), (std::vector<std::int64_t>{7, 6, 5}));
  // What was read before a write began is not held after it.
  const auto before = h.generation();
  h.begin_write(seven);
  h.end_write(seven);
  h.hold(*before, {{3, series_of(1, 2)}}, true);
  std::map<std::int64_t, int> three = {{3, 0}};
  EXPECT_FALSE(h.visit_newest_before(three, 100000, 100, false, 1, [](const auto&, const MainPoint&) {}));
}

TEST(MainHistory, KeepsTheNewestDepthPointsAndThenNoLongerTheWhole) {
  MainHistory h;
  const auto depth = static_cast<std::int64_t>(MainHistory::kDepth);
  h.hold(*h.generation(), {{1, series_of(1, depth)}}, true);
  EXPECT_EQ(newest(h, depth + 1, 1000).size(), MainHistory::kDepth) << "all of it";
  const MainHistory::Added next = {{1, at(depth + 1)}}, old = {{1, at(0)}};
  h.begin_write(next);
  h.end_write(next);
  EXPECT_EQ(newest(h, depth + 2, MainHistory::kDepth).front(), depth + 1);
  EXPECT_EQ(newest(h, depth + 2, MainHistory::kDepth + 1), std::vector<std::int64_t>{-1}) << "run 1 was let go";
  h.begin_write(old);
  h.end_write(old);
  EXPECT_EQ(newest(h, 2, 1), std::vector<std::int64_t>{-1}) << "a point older than all held is not held: run 1 lies between";
}
