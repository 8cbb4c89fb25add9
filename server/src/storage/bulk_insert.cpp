#include "storage/bulk_insert.h"

#include <stdexcept>

namespace shaderwatch::sql {

BulkInsert::BulkInsert(Conn& c, std::string head, int columns, std::string tail)
    : c_(c), head_(std::move(head)), tail_(std::move(tail)), columns_(columns) {
  pending_.reserve(static_cast<std::size_t>(columns_ * kRowsPerStatement));
}

void BulkInsert::add(std::vector<Value> row) {
  check_width(row.size());
  for (auto& v : row) pending_.push_back(std::move(v));
  if (static_cast<int>(pending_.size()) == columns_ * kRowsPerStatement) send(kRowsPerStatement);
}

void BulkInsert::add(std::initializer_list<Value> row) {
  check_width(row.size());
  pending_.insert(pending_.end(), row);
  if (static_cast<int>(pending_.size()) == columns_ * kRowsPerStatement) send(kRowsPerStatement);
}

void BulkInsert::check_width(std::size_t values) const {
  if (static_cast<int>(values) != columns_)
    throw std::logic_error(head_ + ": a row of " + std::to_string(values) + " values, not " + std::to_string(columns_));
}

void BulkInsert::finish() {
  // The rest in power-of-two batches, so each table needs at most a handful of distinct statements.
  while (!pending_.empty()) {
    const int left = static_cast<int>(pending_.size()) / columns_;
    int rows = 1;
    while (rows * 2 <= left) rows *= 2;
    send(rows);
  }
}

void BulkInsert::send(int rows) {
  std::string one = "(";
  for (int i = 0; i < columns_; ++i) one += i ? ",?" : "?";
  one += ")";
  std::string sql = head_ + " VALUES";
  for (int r = 0; r < rows; ++r) sql += (r ? "," : "") + one;
  if (!tail_.empty()) sql += " " + tail_;
  auto& st = c_.q(sql);
  const int n = rows * columns_;
  for (int i = 0; i < n; ++i) bind_value(st, i + 1, pending_[static_cast<std::size_t>(i)]);
  st.run();
  st.reset();
  pending_.erase(pending_.begin(), pending_.begin() + n);
}

void bind_value(Stmt& st, int i, const Value& v) {
  if (const auto* x = std::get_if<std::int64_t>(&v)) st.bind(i, *x);
  else if (const auto* d = std::get_if<double>(&v)) st.bind(i, *d);
  else if (const auto* s = std::get_if<std::string>(&v)) st.bind(i, *s);
  else if (const auto* t = std::get_if<std::string_view>(&v)) st.bind(i, *t);
  else if (const auto* b = std::get_if<Blob>(&v)) st.bind_blob(i, b->bytes.data(), b->bytes.size());
  else st.bind_null(i);
}

Value column_value(const Stmt& st, int c) {
  switch (st.type(c)) {
    case ColumnType::Integer: return st.i64(c);
    case ColumnType::Real: return st.f64(c);
    case ColumnType::Text: return st.text(c);
    case ColumnType::Blob: return Blob{std::string(st.blob(c))};
    case ColumnType::Null: break;
  }
  return std::monostate{};
}

}  // namespace shaderwatch::sql
