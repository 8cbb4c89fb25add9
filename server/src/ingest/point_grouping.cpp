#include "ingest/point_grouping.h"

#include <shaderwatch/result_contract.h>

namespace shaderwatch {

StoredRow stored_row(const Row& r) {
  StoredRow s;
  s.idx = static_cast<std::int64_t>(r.idx);
  s.aggregate = r.run_type == "aggregate";
  if (!r.aggregate_name.empty()) s.aggregate_name = r.aggregate_name;
  s.aggregate_unit = r.aggregate_unit;
  s.repetition_index = r.repetition_index;
  s.repetitions = r.repetitions;
  s.threads = r.threads;
  s.iterations = r.iterations;
  s.real_ns = r.real_ns;
  s.cpu_ns = r.cpu_ns;
  s.time_unit = r.time_unit;
  s.label = r.label;
  s.error = r.error;
  s.error_message = r.error_message;
  s.status = r.status;
  s.counters = r.counters;
  return s;
}

std::map<std::string, BenchmarkRowGroup> group_rows(const std::vector<Row>& rows) {
  std::map<std::string, std::vector<const Row*>> by_name;
  for (const auto& r : rows) by_name[r.series_name].push_back(&r);
  std::map<std::string, BenchmarkRowGroup> out;
  for (const auto& [name, group] : by_name) {
    std::vector<StoredRow> stored;
    stored.reserve(group.size());
    for (const Row* r : group) stored.push_back(stored_row(*r));
    BenchmarkRowGroup& g = out[name];
    g.packed = pack_rows(stored);
    g.summary = summarize_rows(stored);
    for (const Row* r : group) {
      if (!part_of_point(r->status)) continue;
      PointRows& a = g.point ? *g.point : g.point.emplace();
      if (a.spirv.empty()) a.spirv = r->spirv;
      if (r->error) {
        ++a.n_errors;
        if (a.error_message.empty()) a.error_message = r->error_message;
      }
    }
    if (g.point) g.point->reps = repetition_times(stored);
  }
  return out;
}

}  // namespace shaderwatch
