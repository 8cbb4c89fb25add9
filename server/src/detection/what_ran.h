// What each series' kernel ran as in a run: its compiled row and its SPIR-V. The verdict's "ran as before"
// (verdict_evidence.cpp) compares a run with two runs of its level on every judgement, and detection judges every
// main post: three runs read in full, 350 rows each with their names split, each time. A committed run's points and
// compiled rows never change, so the answers for the runs read last are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "storage/series_names.h"
#include "storage/sql.h"

namespace shaderwatch {

struct Ran {
  std::int64_t compiled = 0;  // the kernel's compiled row in the run (0: none recorded)
  std::string spirv;          // the point's SPIR-V hash ("" where the run named none)
};
using RanBySeries = std::map<std::int64_t, Ran>;  // series -> what its kernel ran as

// Read from the database: the run `run_pk` as committed, its points named by `names`.
RanBySeries read_what_ran(sql::Conn& c, SeriesNames& names, std::int64_t run_pk);

class WhatRanCache {
 public:
  explicit WhatRanCache(SeriesNames& names) : names_(names) {}

  // Past this, the oldest run goes (the smallest key, as the verdict cache does): a judgement compares a run with its
  // level's newest and middle runs, ~24 runs back, and 256 hold that for ten GPUs posting in turn.
  static constexpr std::size_t kMostRuns = 256;

  // Run `run_pk`'s answer: kept, else read on `c` and kept. The run must be committed (a run's answer is read once).
  std::shared_ptr<const RanBySeries> get(sql::Conn& c, std::int64_t run_pk);

 private:
  SeriesNames& names_;
  std::mutex mu_;
  std::map<std::int64_t, std::shared_ptr<const RanBySeries>> kept_;  // run -> what it ran as
};

}  // namespace shaderwatch
