#include "queries/run_counters.h"

#include <algorithm>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "storage/result_sets.h"

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

// A counter of a row as a number (NAN where absent or not a number).
double counter(const StoredRow& r, const char* name) {
  const auto it = r.counters.find(name);
  return it != r.counters.end() && it->is_number() ? it->get<double>() : NAN;
}

}  // namespace

std::map<std::string, BenchmarkCounters> run_counters(sql::Conn& c, std::int64_t run_pk) {
  std::map<std::string, BenchmarkCounters> out;
  for (const auto& b : run_rows(c, run_pk)) {
    std::vector<double> p25, p75, roofline, copy_peak, err;
    BenchmarkCounters k;
    bool iteration = false;
    for (const auto& r : b.rows) {
      if (r.aggregate) continue;
      iteration = true;
      std::string message = r.error_message;
      if (r.status == RowStatus::Flake) {
        const double retries = counter(r, contract::kCheckRetriesCounter);
        message = "flaky: " + (std::isnan(retries) ? std::string("a") : std::to_string(static_cast<std::int64_t>(retries))) +
                  " failed checks, then one passed";
      }
      if (r.status >= k.outcome && r.status != RowStatus::Pass) k.outcome = r.status, k.message = std::move(message);
      const auto add = [&](std::vector<double>& v, const char* name, double scale) {
        if (const double x = counter(r, name); !std::isnan(x)) v.push_back(x * scale);
      };
      add(p25, contract::kP25Counter, 1e3);  // the counters are in microseconds
      add(p75, contract::kP75Counter, 1e3);
      add(copy_peak, contract::kPctOfPeakCounter, 1);
      add(roofline, contract::kPctOfRooflineCounter, 1);
      add(err, contract::kErrBoundRatioCounter, 1);
    }
    if (!iteration) continue;
    k.p25_ns = median_of(p25);
    k.p75_ns = median_of(p75);
    k.pct_of_roofline = median_of(roofline);
    k.pct_of_copy_peak = median_of(copy_peak);
    k.err_bound_ratio = median_of(err);
    out.emplace(b.name, std::move(k));
  }
  return out;
}

std::map<std::int64_t, std::pair<double, double>> run_quartiles(sql::Conn& c, const std::vector<std::int64_t>& runs,
                                                                std::int64_t benchmark_id) {
  auto rows = benchmark_rows_in_runs(c, runs, benchmark_id);
  std::map<std::int64_t, std::pair<double, double>> out;
  for (const auto run : runs) {
    std::vector<double> p25, p75;
    for (const auto& r : rows[run]) {
      if (r.aggregate || r.error) continue;
      if (const double x = counter(r, contract::kP25Counter); !std::isnan(x)) p25.push_back(x * 1e3);
      if (const double x = counter(r, contract::kP75Counter); !std::isnan(x)) p75.push_back(x * 1e3);
    }
    out[run] = {median_of(p25), median_of(p75)};
  }
  return out;
}

}  // namespace shaderwatch
