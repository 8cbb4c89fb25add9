// What the pages read of a benchmark's rows in a run, kept beside its pack (result_sets' summary columns) and so
// kept when pruning removes the pack: the outcome of its check (worst over repetitions) and the medians over
// repetitions of the counters shaderwatch-bench writes (contract: quartiles, % of roofline or of the copy peak,
// error / bound), and its own sample spread. Computed once, at ingest (and by migration 9), from the rows.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "common/stored_rows.h"

namespace shaderwatch {

struct RowsSummary {
  bool has_iteration = false;  // a benchmark with aggregates only has no outcome or counters of its own
  contract::RowStatus outcome = contract::RowStatus::Pass;  // the worst over its iteration rows
  std::string message;  // the error message of the worst repetition (flakes: how many checks failed); empty for a pass
  // Medians over its iteration rows (NAN where none carries the counter); the quartiles in ns.
  double p25_ns = NAN, p75_ns = NAN, pct_of_roofline = NAN, pct_of_copy_peak = NAN, err_bound_ratio = NAN;
  // Its first repetition's own spread, (p75 - p25) / median in percent (NAN where that row does not say).
  double spread_pct = NAN;
};

RowsSummary summarize_rows(const std::vector<StoredRow>& rows);

}  // namespace shaderwatch
