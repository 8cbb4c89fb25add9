#include "common/rows_summary.h"

#include <algorithm>

namespace shaderwatch {

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

RowsSummary summarize_rows(const std::vector<StoredRow>& rows) {
  using contract::RowStatus;
  RowsSummary s;
  std::vector<double> p25, p75, roofline, copy_peak, err;
  for (const auto& r : rows) {
    if (r.aggregate) continue;
    s.has_iteration = true;
    std::string message = r.error_message;
    if (r.status == RowStatus::Flake) {
      const double retries = counter(r, contract::kCheckRetriesCounter);
      message = "flaky: " + (std::isnan(retries) ? std::string("a") : std::to_string(static_cast<std::int64_t>(retries))) +
                " failed checks, then one passed";
    }
    if (r.status >= s.outcome && r.status != RowStatus::Pass) s.outcome = r.status, s.message = std::move(message);
    const auto add = [&](std::vector<double>& v, const char* name, double scale) {
      if (const double x = counter(r, name); !std::isnan(x)) v.push_back(x * scale);
    };
    add(p25, contract::kP25Counter, 1e3);  // the counters are in microseconds
    add(p75, contract::kP75Counter, 1e3);
    add(copy_peak, contract::kPctOfPeakCounter, 1);
    add(roofline, contract::kPctOfRooflineCounter, 1);
    add(err, contract::kErrBoundRatioCounter, 1);
    if (r.repetition_index == 0 && !r.error) {
      const double median = counter(r, contract::kMedianCounter), lo = counter(r, contract::kP25Counter),
                   hi = counter(r, contract::kP75Counter);
      if (median > 0 && hi >= lo) s.spread_pct = 100 * (hi - lo) / median;
    }
  }
  s.p25_ns = median_of(p25);
  s.p75_ns = median_of(p75);
  s.pct_of_roofline = median_of(roofline);
  s.pct_of_copy_peak = median_of(copy_peak);
  s.err_bound_ratio = median_of(err);
  return s;
}

}  // namespace shaderwatch
