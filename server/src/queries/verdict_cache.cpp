#include "queries/verdict_cache.h"

namespace shaderwatch {

std::string VerdictCache::key(sql::Conn& c, std::int64_t run_pk, bool on_main) {
  auto& st = c.q(on_main ? "SELECT COUNT(*), MAX(r.id) FROM runs r JOIN runs j ON j.id=? WHERE r.gpu_id=j.gpu_id AND"
                           " (r.started_ms, r.id) <= (j.started_ms, j.id)"
                         : "SELECT COUNT(*), MAX(r.id) FROM runs r JOIN runs j ON j.id=? WHERE r.gpu_id=j.gpu_id");
  st.bind(1, run_pk);
  std::string k;
  if (st.step()) k.append(st.text(0)).append("/").append(st.text(1));
  st.reset();
  // The states' lengths differ (new, acknowledged, expected, fixed, invalid): weighted by id, any change of state
  // changes the sum, as a note changes its length or the time it was last changed.
  auto& alerts = c.q("SELECT COUNT(*), MAX(id), MAX(updated_at), SUM(id * LENGTH(state)), SUM(LENGTH(COALESCE(note, '')))"
                     " FROM alerts");
  if (alerts.step())
    for (int i = 0; i < 5; ++i) k.append(";").append(alerts.text(i));
  alerts.reset();
  return k;
}

std::optional<Verdict> VerdictCache::get(std::int64_t run_pk, const std::string& key) {
  std::lock_guard lk(mu_);
  const auto it = kept_.find(run_pk);
  if (it == kept_.end() || it->second.first != key) return std::nullopt;
  return it->second.second;
}

void VerdictCache::put(std::int64_t run_pk, const std::string& key, const Verdict& v) {
  std::lock_guard lk(mu_);
  kept_[run_pk] = {key, v};
  while (kept_.size() > kMostKept) kept_.erase(kept_.begin());
}

}  // namespace shaderwatch
