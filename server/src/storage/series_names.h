// Each series' benchmark name, kept by the process. A series (a benchmark on a GPU) and its benchmark's name never
// change once committed, so a name read once holds for good. Naming a run's ~350 points by joining them to series
// and benchmarks took 1-3 ms a read on PostgreSQL, and every main post's detection names its run twice (the gate's
// evidence and what the run ran as).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/sql.h"

namespace shaderwatch {

class SeriesNames {
 public:
  // The names of `series`, the series of committed run `run_pk`'s points, in their order. Where any is not held,
  // the names of every point of the run are read (one statement) and kept.
  std::vector<std::string> of_run(sql::Conn& c, std::int64_t run_pk, const std::vector<std::int64_t>& series);

 private:
  std::mutex mu_;
  std::unordered_map<std::int64_t, std::string> names_;  // series -> its benchmark's name
};

}  // namespace shaderwatch
