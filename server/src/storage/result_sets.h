// Where a run's rows live: one pack per benchmark (common/stored_rows.h) in table result_sets, with its summary
// (common/rows_summary.h) beside it, its shape in row_shapes, stored once for every pack that has it. Written by
// ingest and the migration, read by every query of raw rows and of the summaries.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/rows_summary.h"
#include "common/stored_rows.h"
#include "storage/sql.h"

namespace shaderwatch {

// Shape ids by shape: those committed (shared across transactions) and those made in the open transaction,
// which become committed only with it (commit()).
class ShapeIds {
 public:
  explicit ShapeIds(std::map<std::string, std::int64_t>& committed) : committed_(committed) {}
  std::int64_t id(sql::Conn& c, const std::string& shape);
  void commit();

 private:
  std::map<std::string, std::int64_t>& committed_;
  std::map<std::string, std::int64_t> fresh_;
};

struct BenchmarkPack {
  std::int64_t benchmark_id = 0;
  PackedRows rows;
  RowsSummary summary;
};
void insert_result_sets(sql::Conn& c, std::int64_t run_pk, const std::vector<BenchmarkPack>& packs, ShapeIds& shapes);

struct BenchmarkRows {
  std::int64_t benchmark_id = 0;
  std::string name;
  std::vector<StoredRow> rows;  // in document order
};
// Every benchmark's rows in the run, by benchmark name. A pruned pack has no rows.
std::vector<BenchmarkRows> run_rows(sql::Conn& c, std::int64_t run_pk);
// Every benchmark's rows in the run without their numbers (shape_rows: kinds, statuses, errors, labels), by benchmark
// name. A run's benchmarks share a few shapes: each is read and decoded once. A pruned pack has no rows, as in
// run_rows, unless `pruned_too` (pruning keeps a pack's shape: what its rows were, without their numbers).
struct RunShapes {
  std::map<std::int64_t, std::vector<StoredRow>> shapes;          // by shape id
  std::vector<std::pair<std::string, std::int64_t>> benchmarks;  // each benchmark's name and shape id, by name
};
RunShapes run_shapes(sql::Conn& c, std::int64_t run_pk, bool pruned_too = false);
// The repetition times (repetition_times()) of each of the run's points, by series id.
std::map<std::int64_t, std::vector<double>> point_repetition_times(sql::Conn& c, std::int64_t run_pk);
// Each benchmark's summary in the run, by benchmark name.
std::map<std::string, RowsSummary> run_summaries(sql::Conn& c, std::int64_t run_pk);
// One benchmark's summary in each of the runs `runs` that has it, by run.
std::map<std::int64_t, RowsSummary> benchmark_summaries(sql::Conn& c, const std::vector<std::int64_t>& runs,
                                                        std::int64_t benchmark_id);

}  // namespace shaderwatch
