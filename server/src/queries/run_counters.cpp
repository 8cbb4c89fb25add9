#include "queries/run_counters.h"

#include <algorithm>
#include <vector>

#include <shaderwatch/result_contract.h>

namespace shaderwatch {

namespace contract = shaderwatch::contract;

RowStatus status_of(const std::string& word) {
  // The column's CHECK allows only the contract's words.
  return contract::row_status_from_word(word).value_or(RowStatus::Fail);
}

namespace {

double median_of(std::vector<double>& v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Read in SQL: the counters column is a JSON object; parsing it in C++ for every row of a 10,000-point
// series would cost more than the rest of the query.
std::string counter(const sql::Conn& c, const char* name) { return c.json_number("r.counters", name); }

}  // namespace

std::map<std::string, BenchmarkCounters> run_counters(sql::Conn& c, std::int64_t run_pk) {
  struct Acc {
    std::vector<double> p25, p75, roofline, copy_peak, err;
    BenchmarkCounters out;
  };
  std::map<std::string, Acc> acc;
  auto& st = c.q("SELECT bm.name, r.status, r.error_message, " + counter(c, contract::kP25Counter) + ", " +
                 counter(c, contract::kP75Counter) + ", " + counter(c, contract::kPctOfPeakCounter) + ", " +
                 counter(c, contract::kErrBoundRatioCounter) + ", " + counter(c, contract::kCheckRetriesCounter) + ", " +
                 counter(c, contract::kPctOfRooflineCounter) +
                 " FROM results r JOIN benchmarks bm ON bm.id=r.benchmark_id WHERE r.run_id=? AND"
                 " r.run_type='iteration'");
  st.bind(1, run_pk);
  while (st.step()) {
    Acc& a = acc[st.text(0)];
    const RowStatus o = status_of(st.text(1));
    std::string message = st.text(2);
    if (o == RowStatus::Flake)
      message = "flaky: " + (st.null(7) ? std::string("a") : std::to_string(st.i64(7))) + " failed checks, then one passed";
    if (o >= a.out.outcome && o != RowStatus::Pass) a.out.outcome = o, a.out.message = std::move(message);
    const auto add = [&](std::vector<double>& v, int col, double scale) {
      if (!st.null(col)) v.push_back(st.f64(col) * scale);
    };
    add(a.p25, 3, 1e3);  // the counters are in microseconds
    add(a.p75, 4, 1e3);
    add(a.copy_peak, 5, 1);
    add(a.roofline, 8, 1);
    add(a.err, 6, 1);
  }
  std::map<std::string, BenchmarkCounters> out;
  for (auto& [name, a] : acc) {
    a.out.p25_ns = median_of(a.p25);
    a.out.p75_ns = median_of(a.p75);
    a.out.pct_of_roofline = median_of(a.roofline);
    a.out.pct_of_copy_peak = median_of(a.copy_peak);
    a.out.err_bound_ratio = median_of(a.err);
    out.emplace(name, std::move(a.out));
  }
  return out;
}

std::map<std::int64_t, std::pair<double, double>> run_quartiles(sql::Conn& c, const std::vector<std::int64_t>& runs,
                                                                std::int64_t benchmark_id) {
  std::map<std::int64_t, std::pair<std::vector<double>, std::vector<double>>> acc;
  // In chunks of a fixed size, so there is one statement to cache (the tail padded with the first id).
  constexpr std::size_t kChunk = 64;
  std::string in;
  for (std::size_t i = 0; i < kChunk; ++i) in += i ? ",?" : "?";
  auto& st = c.q("SELECT r.run_id, " + counter(c, contract::kP25Counter) + ", " + counter(c, contract::kP75Counter) +
                 " FROM results r WHERE r.benchmark_id=? AND r.run_id IN (" + in + ") AND r.run_type='iteration' AND"
                 " r.error_occurred=0");
  for (std::size_t from = 0; from < runs.size(); from += kChunk) {
    st.reset();
    st.bind(1, benchmark_id);
    for (std::size_t i = 0; i < kChunk; ++i)
      st.bind(static_cast<int>(i) + 2, runs[from + i < runs.size() ? from + i : from]);
    while (st.step()) {
      auto& [p25, p75] = acc[st.i64(0)];
      if (!st.null(1)) p25.push_back(st.f64(1) * 1e3);
      if (!st.null(2)) p75.push_back(st.f64(2) * 1e3);
    }
  }
  std::map<std::int64_t, std::pair<double, double>> out;
  for (const auto run : runs) {
    auto& [p25, p75] = acc[run];
    out[run] = {median_of(p25), median_of(p75)};
  }
  return out;
}

}  // namespace shaderwatch
