#include "detection/what_ran.h"

#include "ingest/benchmark_name.h"

namespace shaderwatch {

RanBySeries read_what_ran(sql::Conn& c, SeriesNames& names, std::int64_t run_pk) {
  std::map<std::string, std::int64_t> compiled;  // kernel -> compiled row
  {
    auto& st = c.q("SELECT kernel, compiled_id FROM run_compiled WHERE run_id=?");
    st.bind(1, run_pk);
    while (st.step()) compiled[st.text(0)] = st.i64(1);
  }
  std::vector<std::int64_t> series;
  std::vector<std::string> spirv;
  auto& st = c.q("SELECT series_id, spirv FROM points WHERE run_id=?");
  st.bind(1, run_pk);
  while (st.step()) {
    series.push_back(st.i64(0));
    spirv.push_back(st.text(1));
  }
  st.reset();
  const auto named = names.of_run(c, run_pk, series);
  RanBySeries out;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto it = compiled.find(split_name(named[i]).kernel());
    out[series[i]] = {it == compiled.end() ? 0 : it->second, std::move(spirv[i])};
  }
  return out;
}

std::shared_ptr<const RanBySeries> WhatRanCache::get(sql::Conn& c, std::int64_t run_pk) {
  {
    std::lock_guard l(mu_);
    if (const auto it = kept_.find(run_pk); it != kept_.end()) return it->second;
  }
  auto ran = std::make_shared<const RanBySeries>(read_what_ran(c, names_, run_pk));  // read outside the lock
  std::lock_guard l(mu_);
  kept_[run_pk] = ran;
  while (kept_.size() > kMostRuns) kept_.erase(kept_.begin());
  return ran;
}

}  // namespace shaderwatch
