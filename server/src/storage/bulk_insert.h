// Many rows of one table in few statements: one round trip per batch on PostgreSQL, fewer statement
// steps on SQLite. Ingest (results, points) and `migrate` load their rows through it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "storage/sql.h"

namespace shaderwatch::sql {

struct Blob {
  std::string bytes;
};
// Text as a std::string, or as a std::string_view where the caller keeps the text alive until finish() (ingest's
// rows: their strings are not copied once per row).
using Value = std::variant<std::monostate, std::int64_t, double, std::string, Blob, std::string_view>;

class BulkInsert {
 public:
  // head: "INSERT INTO t(a, b, c)"; tail (optional): what follows the VALUES lists, e.g. ON CONFLICT.
  BulkInsert(Conn& c, std::string head, int columns, std::string tail = {});
  // One row of `columns` values; sent once a batch is full.
  void add(std::vector<Value> row);
  void add(std::initializer_list<Value> row);
  // Sends what is left. Call before committing: rows still held are not in the database.
  void finish();

  static constexpr int kRowsPerStatement = 64;

 private:
  void send(int rows);
  void check_width(std::size_t values) const;
  Conn& c_;
  std::string head_, tail_;
  int columns_;
  std::vector<Value> pending_;
};

// Binds v to parameter i.
void bind_value(Stmt& st, int i, const Value& v);
// Column c of the current row, as the engine typed it.
Value column_value(const Stmt& st, int c);

}  // namespace shaderwatch::sql
