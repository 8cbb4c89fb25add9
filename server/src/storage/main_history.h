// The newest main-branch points of each series, held in memory for the verdict's evidence: a run's verdict (and the
// single-run gate detection runs on every main post) reads the newest ~96 points of each of its ~350 series, which
// was 33,000 rows from the database per judgement. Kept in step with the writer: a run's commit is bracketed by
// begin_write()/end_write() for the series it adds to, and a reader uses what is held of a series only while no
// write to it is in flight, after it has read what its answer is keyed on: the points it is given are never older
// than the database it keyed the answer on.
// Where other server processes add runs to the database too (PostgreSQL), a reader first brings what is held of a
// GPU's series up to the database's main runs (catch_up, storage/main_runs_follower.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "storage/main_point.h"

namespace shaderwatch {

namespace sql {
class Conn;
}
class MainRunsFollower;
struct MainRunsBehind;

class MainHistory {
 public:
  static constexpr std::size_t kDepth = 128;         // newest points held per series
  static constexpr std::size_t kMostSeries = 20000;  // past this, everything held is dropped (read again as needed)

  MainHistory();
  ~MainHistory();
  // Other processes add runs to the database too: from now on catch_up() is what keeps it in step with them.
  void follow_others();
  // Before what is held of a GPU's series is read on `c`: takes in the points of its main runs that committed since
  // (nothing where no other process adds runs: the writer's brackets keep it in step).
  void catch_up(sql::Conn& c, std::int64_t gpu_id, const std::string& main_branch);

  // The writer, around one run's transaction: begin before it commits, with the main points it adds (series ->
  // point); end after, or abandon where it did not commit.
  using Added = std::vector<std::pair<std::int64_t, MainPoint>>;
  void begin_write(const Added& added);
  void end_write(const Added& added);
  void abandon_write(const Added& added);
  // After end_write, for a main run of the GPU: what is held has its points (a follower need not read them back).
  void written(std::int64_t gpu_id, std::int64_t run_pk);

  // A reader about to read the database for hold(): the generation it reads at (none while a write is in flight:
  // what it reads could not be held).
  std::optional<std::uint64_t> generation() const;
  // Each series of `series` (pairs, first the series id): its newest `limit` points before (ms, pk) ((ms, pk) itself
  // too where `inclusive`), newest first, each given to f(the pair, point) without a copy. False, and f never called,
  // where what is held cannot say for any of them (not held, a write to it in flight, or fewer held than asked while
  // older ones exist).
  template <class Series, class F>
  bool visit_newest_before(const Series& series, std::int64_t ms, std::int64_t pk, bool inclusive, std::size_t limit,
                           F&& f) const {
    std::lock_guard l(mu_);
    std::vector<std::pair<const MainPoint*, std::size_t>> spans;  // per series: one past its newest point, count
    spans.reserve(series.size());
    for (const auto& s : series) {
      const auto span = held_span(s.first, ms, pk, inclusive, limit);
      if (!span) return false;
      spans.push_back(*span);
    }
    std::size_t i = 0;
    for (const auto& s : series) {
      const auto [end, n] = spans[i++];
      for (std::size_t k = 1; k <= n; ++k) f(s, end[-static_cast<std::ptrdiff_t>(k)]);
    }
    return true;
  }
  // Holds series' newest points (oldest first, at most kDepth) as read at `generation`; `whole`: they are all the
  // series has. Dropped where a write began since.
  void hold(std::uint64_t generation, std::map<std::int64_t, std::vector<MainPoint>> newest, bool whole);

 private:
  struct Held {
    std::vector<MainPoint> pts;  // oldest first
    bool whole = false;          // every main point of the series with a value
  };
  void done_writing(const Added& added);  // under mu_
  void take_in(const MainRunsBehind& behind);
  void insert_held(std::int64_t sid, const MainPoint& p);  // under mu_; once (a point held already stays as it is)
  // Under mu_: where series `sid`'s newest `limit` points before the bound end (one past the newest) and how many
  // there are; none where what is held cannot say.
  std::optional<std::pair<const MainPoint*, std::size_t>> held_span(std::int64_t sid, std::int64_t ms, std::int64_t pk, bool inclusive,
                                                     std::size_t limit) const;

  mutable std::mutex mu_;
  std::uint64_t generation_ = 0;  // writes begun
  std::size_t in_flight_ = 0;
  std::map<std::int64_t, int> writing_;  // series -> writes in flight adding to it
  std::map<std::int64_t, Held> held_;
  std::unique_ptr<MainRunsFollower> follower_;  // set by follow_others()
};

}  // namespace shaderwatch
