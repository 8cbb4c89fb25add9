#include "storage/copy_database.h"

#include <algorithm>
#include <chrono>

#include "storage/bulk_insert.h"
#include "storage/database.h"
#include "storage/result_sets.h"
#include "storage/sql.h"

namespace shaderwatch {

namespace {

// Parents before children, so every foreign key finds its row; each in its key's order. Every table but
// result_sets, points and run_compiled has an id column of its own. result_sets and points are copied by the columns
// both engines' schemas share (on PostgreSQL a point is columns of its pack's row: storage/result_sets.h).
struct Table {
  const char* name;
  const char* key = "id";
  const char* columns = "*";
};
const Table kTables[] = {{"tokens"}, {"gpus"}, {"benchmarks"}, {"series"}, {"runs"}, {"row_shapes"},
                         {"result_sets", "run_id, benchmark_id", kPackColumns},
                         {"points", "series_id, started_ms, run_id", kPointColumns}, {"alerts"}, {"compiled"},
                         {"run_compiled", "run_id, kernel"}};

// "a, b" as "x.a, x.b".
std::string qualified(const std::string& columns, const std::string& alias) {
  std::string out;
  for (std::size_t at = 0; at < columns.size();) {
    const std::size_t end = std::min(columns.find(',', at), columns.size());
    const std::size_t from = columns.find_first_not_of(' ', at);
    out += (out.empty() ? "" : ", ") + alias + "." + columns.substr(from, end - from);
    at = end + 1;
  }
  return out;
}

// What to read of the source for table t: where the destination keeps points in their packs' rows, each pack with
// its point (the points themselves then arrive with the packs).
std::string source_query(const Table& t, bool points_in_packs) {
  const std::string name = t.name;
  if (points_in_packs && name == "result_sets")
    return "SELECT " + qualified(kPackColumns, "rs") + ", " + qualified(folded_point_columns(), "p") +
           " FROM result_sets rs LEFT JOIN (points p JOIN series s ON s.id=p.series_id)"
           " ON p.run_id=rs.run_id AND s.benchmark_id=rs.benchmark_id ORDER BY rs.run_id, rs.benchmark_id";
  return "SELECT " + std::string(t.columns) + " FROM " + name + " ORDER BY " + t.key;
}

std::uint64_t count_rows(sql::Conn& c, const std::string& table) {
  auto& st = c.q("SELECT COUNT(*) FROM " + table);
  st.step();
  const auto n = static_cast<std::uint64_t>(st.i64(0));
  st.reset();
  return n;
}

}  // namespace

std::vector<CopiedTable> copy_database(const std::string& from, const std::string& to,
                                       const std::function<void(const std::string&)>& progress) {
  const auto src_at = sql::Location::parse(from), dst_at = sql::Location::parse(to);
  if (src_at.engine == dst_at.engine && src_at.target == dst_at.target)
    throw std::runtime_error("--from and --to name the same database");
  // Each to this server's schema (creating the destination's tables).
  { Database s({.db = from, .readers = 1}); }
  { Database d({.db = to, .readers = 1}); }
  auto src = sql::connect(src_at, sql::Role::Reader);
  auto dst = sql::connect(dst_at, sql::Role::Writer);
  for (const char* t : {"runs", "tokens"})
    if (const auto n = count_rows(*dst, t))
      throw std::runtime_error(dst_at.describe() + " already holds " + std::to_string(n) + " " + t +
                               "; migrate copies into an empty database");

  std::vector<CopiedTable> copied;
  sql::Tx tx(*dst);
  // PostgreSQL keeps a point in its pack's row (migration 13).
  const bool points_in_packs = dst->shared();
  for (const auto& t : kTables) {
    const std::string table = t.name;
    const auto total = count_rows(*src, table);
    if (points_in_packs && table == "points") {  // arrived with result_sets
      progress(table + ": " + std::to_string(total) + " rows copied with result_sets");
      copied.push_back({table, total});
      continue;
    }
    auto& st = src->q(source_query(t, points_in_packs));
    std::optional<sql::BulkInsert> out;
    std::uint64_t n = 0;
    auto last = std::chrono::steady_clock::now();
    while (st.step()) {
      if (!out) {
        std::string head = "INSERT INTO " + table + "(";
        for (int c = 0; c < st.columns(); ++c) head += (c ? ", " : "") + st.column_name(c);
        out.emplace(*dst, head + ")", st.columns());
      }
      std::vector<sql::Value> row;
      row.reserve(static_cast<std::size_t>(st.columns()));
      for (int c = 0; c < st.columns(); ++c) row.push_back(sql::column_value(st, c));
      out->add(std::move(row));
      if (++n % 4096 == 0 && std::chrono::steady_clock::now() - last > std::chrono::seconds(2)) {
        last = std::chrono::steady_clock::now();
        progress(table + ": " + std::to_string(n) + " of " + std::to_string(total) + " rows");
      }
    }
    st.reset();
    if (out) out->finish();
    if (std::string_view(t.key) == "id") dst->follow_copied_ids(table);
    progress(table + ": " + std::to_string(n) + " rows copied");
    copied.push_back({table, n});
  }
  // Nothing lost: each table holds as many rows as its source.
  for (const auto& c : copied)
    if (const auto n = count_rows(*dst, c.table); n != c.rows)
      throw std::runtime_error(c.table + ": " + std::to_string(n) + " rows arrived of " + std::to_string(c.rows));
  tx.commit();
  return copied;
}

}  // namespace shaderwatch
