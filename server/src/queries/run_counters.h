// What a run says of each benchmark beyond its time: the outcome of its check (worst over repetitions)
// and the medians over repetitions of the counters shaderwatch-bench writes (contract): quartiles, % of
// peak, error / bound. Read from each benchmark's summary beside its pack (common/rows_summary.h), which
// pruning keeps; shared by the run, series, rankings and correctness queries.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "storage/sql.h"

namespace shaderwatch {

using contract::RowStatus;
// The status of a stored row: its results.status column.
RowStatus status_of(const std::string& word);

struct BenchmarkCounters {
  double p25_ns = NAN, p75_ns = NAN, err_bound_ratio = NAN;
  // % of the memory roofline (runs from issue 26 on); older runs carry % of the copy peak instead, a figure
  // of another meaning (bytes read + written against the copy rate) that is never shown as the first.
  double pct_of_roofline = NAN, pct_of_copy_peak = NAN;
  RowStatus outcome = RowStatus::Pass;
  std::string message;  // the error message of the worst repetition; empty for a pass
};

// Per benchmark name, for one run (run primary key).
std::map<std::string, BenchmarkCounters> run_counters(sql::Conn& c, std::int64_t run_pk);
// One benchmark's quartiles in each of the runs `runs` (NAN where a run carries none), read in one query.
std::map<std::int64_t, std::pair<double, double>> run_quartiles(sql::Conn& c, const std::vector<std::int64_t>& runs,
                                                                std::int64_t benchmark_id);

}  // namespace shaderwatch
