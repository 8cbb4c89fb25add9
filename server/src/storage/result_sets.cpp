#include "storage/result_sets.h"

#include <cmath>

#include "common/sha256.h"
#include "storage/bulk_insert.h"

namespace shaderwatch {

namespace {

// A pack holds its rows in document order (pack_rows is given them so).
std::vector<StoredRow> unpack_at(const sql::Stmt& st, int first, bool counters = true) {
  return unpack_rows(st.i64(first), st.blob(first + 1), st.blob(first + 2), counters);
}

}  // namespace

std::int64_t ShapeIds::id(sql::Conn& c, const std::string& shape) {
  if (const auto it = committed_.find(shape); it != committed_.end()) return it->second;
  if (const auto it = fresh_.find(shape); it != fresh_.end()) return it->second;
  const std::string sha = sha256_hex(shape);
  c.q("INSERT INTO row_shapes(sha256, shape) VALUES(?,?) ON CONFLICT DO NOTHING")
      .bind(1, sha).bind_blob(2, shape.data(), shape.size()).run();
  auto& st = c.q("SELECT id FROM row_shapes WHERE sha256=?");
  st.bind(1, sha);
  if (!st.step()) throw sql::Error("row shape " + sha + " was not stored");
  const auto id = st.i64(0);
  st.reset();
  fresh_.emplace(shape, id);
  return id;
}

void ShapeIds::commit() {
  // A suite's shapes repeat run after run; new kernels and labels add some. Bounded, not forever.
  constexpr std::size_t kMostCached = 100000;
  if (committed_.size() + fresh_.size() > kMostCached) committed_.clear();
  committed_.insert(fresh_.begin(), fresh_.end());
  fresh_.clear();
}

const char* const kPointColumns =
    "series_id, started_ms, run_id, value_ns, min_ns, max_ns, n_reps, n_errors, error_message, label, on_main, spirv,"
    " spread";
const char* const kPackColumns =
    "run_id, benchmark_id, first_idx, shape_id, packed, has_iteration, outcome, message, p25_ns, p75_ns,"
    " pct_of_roofline, pct_of_copy_peak, err_bound_ratio, spread_pct";

namespace {

constexpr int kPointWidth = 13, kPackWidth = 14;

}  // namespace

std::string folded_point_columns() {
  std::string columns = kPointColumns;
  return columns.replace(columns.find(" run_id,"), 8, "");
}

namespace {

// A pack's values, in kPackColumns' order.
void add_pack(std::vector<sql::Value>& row, sql::Conn& c, std::int64_t run_pk, const BenchmarkPack& p, ShapeIds& shapes) {
  const auto real = [](double v) { return std::isnan(v) ? sql::Value{} : sql::Value{v}; };
  const RowsSummary& s = p.summary;
  for (sql::Value v : {sql::Value{run_pk}, sql::Value{p.benchmark_id}, sql::Value{p.rows.first_idx},
                       sql::Value{shapes.id(c, p.rows.shape)}, sql::Value{sql::Blob{p.rows.values}},
                       sql::Value{std::int64_t{s.has_iteration}}, sql::Value{std::string(contract::row_status_word(s.outcome))},
                       sql::Value{s.message}, real(s.p25_ns), real(s.p75_ns), real(s.pct_of_roofline),
                       real(s.pct_of_copy_peak), real(s.err_bound_ratio), real(s.spread_pct)})
    row.push_back(std::move(v));
}

// A point's values, in kPointColumns' order, less run_id where `run_pk` is null (a PostgreSQL pack row holds the
// run once); NULLs where there is no point (such a row's).
void add_point(std::vector<sql::Value>& row, const std::int64_t* run_pk, std::int64_t started_ms,
               const std::optional<StoredPoint>& point) {
  if (!point) {
    row.resize(row.size() + kPointWidth - (run_pk ? 0 : 1));
    return;
  }
  const StoredPoint& p = *point;
  const auto maybe = [](const std::optional<double>& v) { return v ? sql::Value{*v} : sql::Value{}; };
  row.push_back(p.series_id);
  row.push_back(started_ms);
  if (run_pk) row.push_back(*run_pk);
  for (sql::Value v : {maybe(p.value_ns), maybe(p.min_ns), maybe(p.max_ns), sql::Value{p.n_reps}, sql::Value{p.n_errors},
                       sql::Value{p.error_message}, sql::Value{p.label}, sql::Value{std::int64_t{p.on_main ? 1 : 0}},
                       sql::Value{p.spirv}, sql::Value{p.spread}})
    row.push_back(std::move(v));
}

}  // namespace

void insert_result_sets(sql::Conn& c, std::int64_t run_pk, const std::vector<BenchmarkPack>& packs, ShapeIds& shapes) {
  sql::BulkInsert ins(c, std::string("INSERT INTO result_sets(") + kPackColumns + ")", kPackWidth);
  for (const auto& p : packs) {
    std::vector<sql::Value> row;
    add_pack(row, c, run_pk, p, shapes);
    ins.add(std::move(row));
  }
  ins.finish();
}

void insert_benchmark_runs(sql::Conn& c, std::int64_t run_pk, std::int64_t started_ms,
                           const std::vector<BenchmarkPack>& packs, ShapeIds& shapes) {
  if (c.shared()) {
    // One row a pack, its point's columns beside (the point's run_id is the pack's: not written twice).
    sql::BulkInsert ins(c, std::string("INSERT INTO result_sets(") + kPackColumns + ", " + folded_point_columns() + ")",
                        kPackWidth + kPointWidth - 1);
    for (const auto& p : packs) {
      std::vector<sql::Value> row;
      add_pack(row, c, run_pk, p, shapes);
      add_point(row, nullptr, started_ms, p.point);
      ins.add(std::move(row));
    }
    ins.finish();
    return;
  }
  insert_result_sets(c, run_pk, packs, shapes);
  sql::BulkInsert points(c, std::string("INSERT INTO points(") + kPointColumns + ")", kPointWidth);
  for (const auto& p : packs) {
    if (!p.point) continue;
    std::vector<sql::Value> row;
    add_point(row, &run_pk, started_ms, p.point);
    points.add(std::move(row));
  }
  points.finish();
}

std::vector<BenchmarkRows> run_rows(sql::Conn& c, std::int64_t run_pk, bool counters) {
  auto& st = c.q("SELECT rs.benchmark_id, bm.name, rs.first_idx, sh.shape, rs.packed FROM result_sets rs"
                 " JOIN benchmarks bm ON bm.id=rs.benchmark_id JOIN row_shapes sh ON sh.id=rs.shape_id"
                 " WHERE rs.run_id=? AND rs.packed IS NOT NULL ORDER BY bm.name");
  st.bind(1, run_pk);
  std::vector<BenchmarkRows> out;
  while (st.step()) out.push_back({st.i64(0), st.text(1), unpack_at(st, 2, counters)});
  return out;
}

std::vector<StoredRow> benchmark_rows(sql::Conn& c, std::int64_t run_pk, std::int64_t benchmark_id) {
  auto& st = c.q("SELECT rs.first_idx, sh.shape, rs.packed FROM result_sets rs JOIN row_shapes sh ON sh.id=rs.shape_id"
                 " WHERE rs.run_id=? AND rs.benchmark_id=? AND rs.packed IS NOT NULL");
  st.bind(1, run_pk).bind(2, benchmark_id);
  std::vector<StoredRow> rows;
  if (st.step()) rows = unpack_at(st, 0);
  st.reset();
  return rows;
}

std::map<std::int64_t, std::vector<double>> point_repetition_times(sql::Conn& c, std::int64_t run_pk) {
  auto& st = c.q("SELECT p.series_id, rs.first_idx, sh.shape, rs.packed FROM points p JOIN series s ON s.id=p.series_id"
                 " JOIN result_sets rs ON rs.run_id=p.run_id AND rs.benchmark_id=s.benchmark_id"
                 " JOIN row_shapes sh ON sh.id=rs.shape_id WHERE p.run_id=? AND rs.packed IS NOT NULL");
  st.bind(1, run_pk);
  std::map<std::int64_t, std::vector<double>> out;
  while (st.step()) out[st.i64(0)] = repetition_times(unpack_rows(st.i64(1), st.blob(2), st.blob(3), false));
  return out;
}

namespace {

constexpr const char* kSummaryColumns =
    "rs.has_iteration, rs.outcome, rs.message, rs.p25_ns, rs.p75_ns, rs.pct_of_roofline, rs.pct_of_copy_peak,"
    " rs.err_bound_ratio, rs.spread_pct";

RowsSummary summary_at(const sql::Stmt& st, int first) {
  const auto real = [&](int c) { return st.null(first + c) ? NAN : st.f64(first + c); };
  RowsSummary s;
  s.has_iteration = st.i64(first) != 0;
  s.outcome = contract::row_status_from_word(st.text(first + 1)).value_or(contract::RowStatus::Fail);
  s.message = st.text(first + 2);
  s.p25_ns = real(3);
  s.p75_ns = real(4);
  s.pct_of_roofline = real(5);
  s.pct_of_copy_peak = real(6);
  s.err_bound_ratio = real(7);
  s.spread_pct = real(8);
  return s;
}

}  // namespace

std::map<std::string, RowsSummary> run_summaries(sql::Conn& c, std::int64_t run_pk) {
  auto& st = c.q(std::string("SELECT bm.name, ") + kSummaryColumns +
                 " FROM result_sets rs JOIN benchmarks bm ON bm.id=rs.benchmark_id WHERE rs.run_id=?");
  st.bind(1, run_pk);
  std::map<std::string, RowsSummary> out;
  while (st.step()) out.emplace(st.text(0), summary_at(st, 1));
  return out;
}

std::map<std::int64_t, RowsSummary> benchmark_summaries(sql::Conn& c, const std::vector<std::int64_t>& runs,
                                                        std::int64_t benchmark_id) {
  // In chunks of a fixed size, so there is one statement to cache (the tail padded with the first id).
  constexpr std::size_t kChunk = 64;
  std::string in;
  for (std::size_t i = 0; i < kChunk; ++i) in += i ? ",?" : "?";
  auto& st = c.q(std::string("SELECT rs.run_id, ") + kSummaryColumns +
                 " FROM result_sets rs WHERE rs.benchmark_id=? AND rs.run_id IN (" + in + ")");
  std::map<std::int64_t, RowsSummary> out;
  for (std::size_t from = 0; from < runs.size(); from += kChunk) {
    st.reset();
    st.bind(1, benchmark_id);
    for (std::size_t i = 0; i < kChunk; ++i)
      st.bind(static_cast<int>(i) + 2, runs[from + i < runs.size() ? from + i : from]);
    while (st.step()) out[st.i64(0)] = summary_at(st, 1);
  }
  st.reset();
  return out;
}

}  // namespace shaderwatch
