#include "storage/series_names.h"

#include <stdexcept>

namespace shaderwatch {

namespace {

// Fills `out` from `names` where all are there.
bool all_held(const std::unordered_map<std::int64_t, std::string>& names, const std::vector<std::int64_t>& series,
              std::vector<std::string>& out) {
  out.clear();
  out.reserve(series.size());
  for (const std::int64_t sid : series) {
    const auto it = names.find(sid);
    if (it == names.end()) return false;
    out.push_back(it->second);
  }
  return true;
}

}  // namespace

std::vector<std::string> SeriesNames::of_run(sql::Conn& c, std::int64_t run_pk,
                                             const std::vector<std::int64_t>& series) {
  std::vector<std::string> out;
  {
    std::lock_guard l(mu_);
    if (all_held(names_, series, out)) return out;
  }
  std::vector<std::pair<std::int64_t, std::string>> read;  // read outside the lock
  auto& st = c.q("SELECT s.id, bm.name FROM series s JOIN benchmarks bm ON bm.id=s.benchmark_id"
                 " WHERE s.id IN (SELECT series_id FROM points WHERE run_id=?)");
  st.bind(1, run_pk);
  while (st.step()) read.emplace_back(st.i64(0), st.text(1));
  std::lock_guard l(mu_);
  for (auto& [sid, name] : read) names_.try_emplace(sid, std::move(name));
  if (!all_held(names_, series, out))
    throw std::logic_error("series of run " + std::to_string(run_pk) + " without a name: not a point of the run");
  return out;
}

}  // namespace shaderwatch
