// Where other server processes add runs to the database too (PostgreSQL), which of each GPU's main runs one
// process's cache of series points has taken in. Runs are never deleted and a run's points commit with it, so a
// cache that has taken in every main run of the GPU the database has is current for the GPU's series: the GPU's
// count and sum of run ids, one cheap statement, say whether it has; only the runs it lacks are read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/main_point.h"
#include "storage/sql.h"

namespace shaderwatch {

// What a cache is to take in before it is read again.
struct MainRunsBehind {
  bool forget_all = false;           // the GPU first seen, or too many runs behind: drop everything held
  std::vector<HeldPoint> points;   // else: the main points (with a value) of the runs it had not taken in
};

class MainRunsFollower {
 public:
  static constexpr std::size_t kMostBehind = 64;  // runs read one by one; past this the cache starts over

  // Brings the cache up to the GPU's main runs as `c` reads them: calls take_in(behind) (under the follower's lock:
  // a cache is told each run at most once at a time) where it lacks some, nothing where it has them all. Applied
  // before what is held of the GPU's series is read; taking in a point twice must change nothing.
  template <class F>
  void catch_up(sql::Conn& c, std::int64_t gpu_id, const std::string& main_branch, F&& take_in) {
    MainRunsBehind behind;
    std::vector<std::int64_t> ids;
    if (!behind_by(c, gpu_id, main_branch, behind, ids)) return;
    std::lock_guard l(mu_);
    take_in(behind);
    remember(gpu_id, std::move(ids));
  }
  // This process's own main run, whose points the cache took in as it wrote them: not read back. (Nothing where the
  // GPU is not followed yet: its first catch_up starts the cache over.)
  void taken_in(std::int64_t gpu_id, std::int64_t run_id);

 private:
  struct Seen {
    std::vector<std::int64_t> ids;  // sorted
    std::int64_t id_sum = 0;
  };
  // False where the cache has every main run of the GPU the database has; else what it lacks and the GPU's run ids.
  bool behind_by(sql::Conn& c, std::int64_t gpu_id, const std::string& main_branch, MainRunsBehind& behind,
                 std::vector<std::int64_t>& ids);
  void remember(std::int64_t gpu_id, std::vector<std::int64_t> ids);  // under mu_

  std::mutex mu_;
  std::unordered_map<std::int64_t, Seen> seen_;  // by GPU
};

}  // namespace shaderwatch
