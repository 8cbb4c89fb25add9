#include "storage/main_history.h"

#include <algorithm>

#include "storage/main_runs_follower.h"

namespace shaderwatch {

void MainHistory::begin_write(const Added& added) {
  std::lock_guard l(mu_);
  ++generation_;
  ++in_flight_;
  for (const auto& [sid, p] : added) ++writing_[sid];
}

void MainHistory::abandon_write(const Added& added) {
  std::lock_guard l(mu_);
  done_writing(added);
}

void MainHistory::done_writing(const Added& added) {
  --in_flight_;
  for (const auto& [sid, p] : added)
    if (const auto it = writing_.find(sid); it != writing_.end() && --it->second == 0) writing_.erase(it);
}

void MainHistory::end_write(const Added& added) {
  std::lock_guard l(mu_);
  done_writing(added);
  for (const auto& [sid, p] : added) insert_held(sid, p);
}

void MainHistory::insert_held(std::int64_t sid, const MainPoint& p) {
  const auto it = held_.find(sid);
  if (it == held_.end()) return;  // read from the database when first asked
  auto& pts = it->second.pts;
  const auto at = std::lower_bound(pts.begin(), pts.end(), p,
                                   [](const MainPoint& a, const MainPoint& b) { return earlier(a, b.started_ms, b.run_id); });
  if (at != pts.end() && at->run_id == p.run_id && at->started_ms == p.started_ms) return;
  if (at == pts.begin() && !it->second.whole) return;  // older than all held: what lies between is not held
  pts.insert(at, p);
  if (pts.size() > kDepth) {
    pts.erase(pts.begin());
    it->second.whole = false;
  }
}

void MainHistory::written(std::int64_t gpu_id, std::int64_t run_pk) {
  if (follower_) follower_->taken_in(gpu_id, run_pk);
}

MainHistory::MainHistory() = default;
MainHistory::~MainHistory() = default;

void MainHistory::follow_others() { follower_ = std::make_unique<MainRunsFollower>(); }

void MainHistory::catch_up(sql::Conn& c, std::int64_t gpu_id, const std::string& main_branch) {
  if (follower_) follower_->catch_up(c, gpu_id, main_branch, [this](const MainRunsBehind& b) { take_in(b); });
}

// A hold() of what was read before this is not kept: the generation moves.
void MainHistory::take_in(const MainRunsBehind& behind) {
  std::lock_guard l(mu_);
  if (behind.forget_all) {
    ++generation_;
    held_.clear();
    return;
  }
  if (behind.points.empty()) return;
  ++generation_;
  for (const auto& [sid, p] : behind.points) insert_held(sid, p);
}

std::optional<std::uint64_t> MainHistory::generation() const {
  std::lock_guard l(mu_);
  if (in_flight_ > 0) return std::nullopt;
  return generation_;
}

std::optional<std::pair<const MainPoint*, std::size_t>> MainHistory::held_span(std::int64_t sid, std::int64_t ms, std::int64_t pk,
                                                                bool inclusive, std::size_t limit) const {
  const auto it = held_.find(sid);
  if (it == held_.end() || writing_.count(sid)) return std::nullopt;
  const auto& pts = it->second.pts;
  const auto end = std::partition_point(pts.begin(), pts.end(), [&](const MainPoint& a) {
    return inclusive ? !earlier(MainPoint{.started_ms = ms, .run_id = pk}, a.started_ms, a.run_id) : earlier(a, ms, pk);
  });
  const auto available = static_cast<std::size_t>(end - pts.begin());
  if (available < limit && !it->second.whole) return std::nullopt;
  return std::pair{pts.data() + available, std::min(available, limit)};
}

void MainHistory::hold(std::uint64_t generation, std::map<std::int64_t, std::vector<MainPoint>> newest, bool whole) {
  std::lock_guard l(mu_);
  if (generation != generation_ || in_flight_ > 0) return;
  if (held_.size() + newest.size() > kMostSeries) held_.clear();
  for (auto& [sid, pts] : newest) {
    if (pts.size() > kDepth) pts.erase(pts.begin(), pts.end() - static_cast<std::ptrdiff_t>(kDepth));
    held_[sid] = Held{std::move(pts), whole};
  }
}

}  // namespace shaderwatch
