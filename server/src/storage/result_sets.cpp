#include "storage/result_sets.h"

#include <cmath>

#include "common/sha256.h"
#include "storage/bulk_insert.h"

namespace shaderwatch {

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

void insert_result_sets(sql::Conn& c, std::int64_t run_pk, const std::vector<BenchmarkPack>& packs, ShapeIds& shapes) {
  sql::BulkInsert ins(c,
                      "INSERT INTO result_sets(run_id, benchmark_id, first_idx, shape_id, packed, has_iteration, outcome,"
                      " message, p25_ns, p75_ns, pct_of_roofline, pct_of_copy_peak, err_bound_ratio, spread_pct)",
                      14);
  const auto real = [](double v) { return std::isnan(v) ? sql::Value{} : sql::Value{v}; };
  for (const auto& p : packs) {
    const RowsSummary& s = p.summary;
    ins.add({run_pk, p.benchmark_id, p.rows.first_idx, shapes.id(c, p.rows.shape), sql::Blob{p.rows.values},
             std::int64_t{s.has_iteration}, std::string(contract::row_status_word(s.outcome)), s.message, real(s.p25_ns),
             real(s.p75_ns), real(s.pct_of_roofline), real(s.pct_of_copy_peak), real(s.err_bound_ratio), real(s.spread_pct)});
  }
  ins.finish();
}

std::vector<BenchmarkRows> run_rows(sql::Conn& c, std::int64_t run_pk) {
  auto& st = c.q("SELECT rs.benchmark_id, bm.name, rs.first_idx, sh.shape, rs.packed FROM result_sets rs"
                 " JOIN benchmarks bm ON bm.id=rs.benchmark_id JOIN row_shapes sh ON sh.id=rs.shape_id"
                 " WHERE rs.run_id=? AND rs.packed IS NOT NULL ORDER BY bm.name");
  st.bind(1, run_pk);
  std::vector<BenchmarkRows> out;
  // A pack holds its rows in document order (pack_rows is given them so).
  while (st.step()) out.push_back({st.i64(0), st.text(1), unpack_rows(st.i64(2), st.blob(3), st.blob(4))});
  return out;
}

RunShapes run_shapes(sql::Conn& c, std::int64_t run_pk, bool pruned_too) {
  RunShapes out;
  const std::string packs = pruned_too ? "" : " AND rs.packed IS NOT NULL";
  {
    auto& st = c.q("SELECT id, shape FROM row_shapes WHERE id IN (SELECT rs.shape_id FROM result_sets rs WHERE rs.run_id=?" +
                   packs + ")");
    st.bind(1, run_pk);
    while (st.step()) out.shapes[st.i64(0)] = shape_rows(st.blob(1));
  }
  // After the shapes: a pack pruned in between is left out here too.
  auto& st = c.q("SELECT bm.name, rs.shape_id FROM result_sets rs JOIN benchmarks bm ON bm.id=rs.benchmark_id"
                 " WHERE rs.run_id=?" + packs + " ORDER BY bm.name");
  st.bind(1, run_pk);
  while (st.step())
    if (out.shapes.count(st.i64(1))) out.benchmarks.emplace_back(st.text(0), st.i64(1));
  return out;
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
