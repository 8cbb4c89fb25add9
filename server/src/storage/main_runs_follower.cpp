#include "storage/main_runs_follower.h"

#include <algorithm>
#include <iterator>
#include <numeric>

namespace shaderwatch {

bool MainRunsFollower::behind_by(sql::Conn& c, std::int64_t gpu_id, const std::string& main_branch,
                                 MainRunsBehind& behind, std::vector<std::int64_t>& ids) {
  std::int64_t count = 0, sum = 0;
  {
    auto& st = c.q("SELECT COUNT(*), COALESCE(SUM(id), 0) FROM runs WHERE gpu_id=? AND branch=?");
    st.bind(1, gpu_id).bind(2, main_branch);
    if (st.step()) count = st.i64(0), sum = st.i64(1);
    st.reset();
  }
  std::vector<std::int64_t> known;
  bool first_sight = false;
  {
    std::lock_guard l(mu_);
    const auto it = seen_.find(gpu_id);
    // What the cache has taken in was read from the database, which only grows: the same count is the same runs.
    if (it != seen_.end() && static_cast<std::int64_t>(it->second.ids.size()) == count && it->second.id_sum == sum)
      return false;
    first_sight = it == seen_.end();
    if (!first_sight) known = it->second.ids;
  }
  auto& st = c.q("SELECT id FROM runs WHERE gpu_id=? AND branch=? ORDER BY id");
  st.bind(1, gpu_id).bind(2, main_branch);
  while (st.step()) ids.push_back(st.i64(0));
  st.reset();
  std::vector<std::int64_t> unseen;
  std::set_difference(ids.begin(), ids.end(), known.begin(), known.end(), std::back_inserter(unseen));
  if (first_sight || unseen.size() > kMostBehind) {
    behind.forget_all = true;
    return true;
  }
  // Usually one run or two: this process's own last post, or another process's.
  auto& pts = c.q("SELECT series_id, started_ms, run_id, value_ns, spread, spirv FROM points WHERE run_id=? AND"
                  " on_main=1 AND value_ns IS NOT NULL");
  for (const std::int64_t run_id : unseen) {
    pts.bind(1, run_id);
    while (pts.step())
      behind.points.push_back({pts.i64(0), {pts.i64(1), pts.i64(2), pts.f64(3), pts.f64(4), pts.text(5)}});
    pts.reset();
  }
  return true;
}

void MainRunsFollower::remember(std::int64_t gpu_id, std::vector<std::int64_t> ids) {
  auto& seen = seen_[gpu_id];
  std::vector<std::int64_t> all;
  all.reserve(std::max(ids.size(), seen.ids.size()));
  std::set_union(seen.ids.begin(), seen.ids.end(), ids.begin(), ids.end(), std::back_inserter(all));
  seen.ids = std::move(all);
  seen.id_sum = std::accumulate(seen.ids.begin(), seen.ids.end(), std::int64_t{0});
}

void MainRunsFollower::taken_in(std::int64_t gpu_id, std::int64_t run_id) {
  std::lock_guard l(mu_);
  const auto it = seen_.find(gpu_id);
  if (it == seen_.end()) return;
  auto& ids = it->second.ids;
  const auto at = std::lower_bound(ids.begin(), ids.end(), run_id);
  if (at != ids.end() && *at == run_id) return;
  ids.insert(at, run_id);
  it->second.id_sum += run_id;
}

}  // namespace shaderwatch
