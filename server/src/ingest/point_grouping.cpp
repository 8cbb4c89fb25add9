#include "ingest/point_grouping.h"

#include <shaderwatch/result_contract.h>

namespace shaderwatch {

std::map<std::string, PointRows> group_points(const std::vector<Row>& rows) {
  struct Aggregates {
    std::optional<double> median, mean;
  };
  std::map<std::string, PointRows> points;
  std::map<std::string, Aggregates> aggregates;
  for (const auto& r : rows) {
    const auto kind = contract::row_kind(r.status);
    if (kind == contract::RowKind::ExpectedOutcome || kind == contract::RowKind::Unsupported) continue;
    auto& a = points[r.series_name];
    if (a.label.empty()) a.label = r.label;
    if (a.spirv.empty()) a.spirv = r.spirv;
    if (r.run_type == "iteration") {
      a.has_iteration = true;
      if (r.error) {
        ++a.n_errors;
        if (a.error_message.empty()) a.error_message = r.error_message;
      } else if (r.real_ns) {
        a.reps.push_back(*r.real_ns);
      }
    } else if (r.aggregate_unit == "time" && r.real_ns && !r.error) {
      if (r.aggregate_name == "median") aggregates[r.series_name].median = r.real_ns;
      if (r.aggregate_name == "mean") aggregates[r.series_name].mean = r.real_ns;
    } else if (r.error) {
      ++a.n_errors;
      if (a.error_message.empty()) a.error_message = r.error_message;
    }
  }
  for (auto& [name, a] : points) {
    if (!a.reps.empty() || a.has_iteration) continue;
    // Aggregates-only output (--benchmark_report_aggregates_only): the median stands in.
    const auto& agg = aggregates[name];
    if (agg.median) a.reps.push_back(*agg.median);
    else if (agg.mean) a.reps.push_back(*agg.mean);
  }
  return points;
}

}  // namespace shaderwatch
