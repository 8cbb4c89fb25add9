#include "storage/copy_database.h"

#include <chrono>

#include "storage/bulk_insert.h"
#include "storage/database.h"
#include "storage/sql.h"

namespace shaderwatch {

namespace {

// Parents before children, so every foreign key finds its row; each in its key's order. Every table but
// result_sets, points and run_compiled has an id column of its own.
struct Table {
  const char* name;
  const char* key = "id";
};
constexpr Table kTables[] = {{"tokens"}, {"gpus"}, {"benchmarks"}, {"series"}, {"runs"}, {"row_shapes"},
                             {"result_sets", "run_id, benchmark_id"}, {"points", "series_id, started_ms, run_id"}, {"alerts"},
                             {"compiled"}, {"run_compiled", "run_id, kernel"}};

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
  for (const auto& t : kTables) {
    const std::string table = t.name;
    const auto total = count_rows(*src, table);
    auto& st = src->q("SELECT * FROM " + table + " ORDER BY " + t.key);
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
