#include "queries/run_counters.h"

#include <cmath>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "storage/result_sets.h"

namespace shaderwatch {

namespace contract = shaderwatch::contract;

RowStatus status_of(const std::string& word) {
  // The column's CHECK allows only the contract's words.
  return contract::row_status_from_word(word).value_or(RowStatus::Fail);
}

std::map<std::string, BenchmarkCounters> run_counters(sql::Conn& c, std::int64_t run_pk) {
  std::map<std::string, BenchmarkCounters> out;
  for (auto& [name, s] : run_summaries(c, run_pk)) {
    if (!s.has_iteration) continue;
    out.emplace(name, BenchmarkCounters{s.p25_ns, s.p75_ns, s.err_bound_ratio, s.pct_of_roofline, s.pct_of_copy_peak,
                                        s.outcome, std::move(s.message)});
  }
  return out;
}

std::map<std::int64_t, std::pair<double, double>> run_quartiles(sql::Conn& c, const std::vector<std::int64_t>& runs,
                                                                std::int64_t benchmark_id) {
  const auto summaries = benchmark_summaries(c, runs, benchmark_id);
  std::map<std::int64_t, std::pair<double, double>> out;
  for (const auto run : runs) {
    const auto it = summaries.find(run);
    out[run] = it == summaries.end() ? std::pair<double, double>(NAN, NAN) : std::pair(it->second.p25_ns, it->second.p75_ns);
  }
  return out;
}

}  // namespace shaderwatch
