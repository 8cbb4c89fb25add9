#include "detection/what_ran.h"

#include "ingest/benchmark_name.h"

namespace shaderwatch {

RanBySeries read_what_ran(sql::Conn& c, std::int64_t run_pk) {
  std::map<std::string, std::int64_t> compiled;  // kernel -> compiled row
  {
    auto& st = c.q("SELECT kernel, compiled_id FROM run_compiled WHERE run_id=?");
    st.bind(1, run_pk);
    while (st.step()) compiled[st.text(0)] = st.i64(1);
  }
  RanBySeries out;
  auto& st = c.q("SELECT p.series_id, bm.name, p.spirv FROM points p JOIN series s ON s.id=p.series_id"
                 " JOIN benchmarks bm ON bm.id=s.benchmark_id WHERE p.run_id=?");
  st.bind(1, run_pk);
  while (st.step()) {
    const auto it = compiled.find(split_name(st.text(1)).kernel());
    out[st.i64(0)] = {it == compiled.end() ? 0 : it->second, st.text(2)};
  }
  return out;
}

std::shared_ptr<const RanBySeries> WhatRanCache::get(sql::Conn& c, std::int64_t run_pk) {
  {
    std::lock_guard l(mu_);
    if (const auto it = kept_.find(run_pk); it != kept_.end()) return it->second;
  }
  auto ran = std::make_shared<const RanBySeries>(read_what_ran(c, run_pk));  // read outside the lock
  std::lock_guard l(mu_);
  kept_[run_pk] = ran;
  while (kept_.size() > kMostRuns) kept_.erase(kept_.begin());
  return ran;
}

}  // namespace shaderwatch
