#include "storage/database.h"

#include <algorithm>
#include <stdexcept>

#include "storage/migrations.h"

namespace shaderwatch {

Database::Database(const DatabaseOptions& opts) {
  const auto where = sql::Location::parse(opts.db);
  location_ = where.describe();
  if (opts.max_db_mib && where.engine != sql::Engine::Sqlite)
    throw std::runtime_error("--max-db-mib limits an SQLite file; give PostgreSQL's database a quota of its own");
  writer_ = sql::connect(where, sql::Role::Writer);
  migrate(*writer_);
  detector_ = sql::connect(where, sql::Role::Writer);
  detector_reader_ = sql::connect(where, sql::Role::Reader);
  if (writer_->shared()) main_history_.follow_others();
  if (opts.max_db_mib) {
    sql::limit_sqlite_size(*writer_, opts.max_db_mib);
    sql::limit_sqlite_size(*detector_, opts.max_db_mib);
  }
  reader_count_ = std::max<std::size_t>(1, opts.readers);
  for (std::size_t i = 0; i < reader_count_; ++i) readers_.push_back(sql::connect(where, sql::Role::Reader));
}

Database::~Database() = default;

int Database::schema_version() {
  auto lk = write();
  return lk.conn().schema_version();
}

Database::ReaderLease::~ReaderLease() {
  if (!c_) return;
  c_->reset_all();
  std::lock_guard lk(db_.read_mu_);
  db_.readers_.push_back(std::move(c_));
  db_.read_cv_.notify_one();
}

Database::ReaderLease Database::reader() {
  std::unique_lock lk(read_mu_);
  read_cv_.wait(lk, [&] { return !readers_.empty(); });
  auto c = std::move(readers_.back());
  readers_.pop_back();
  return ReaderLease(*this, std::move(c));
}

void Database::ping() {
  auto c = reader();
  auto& st = c->q("SELECT 1");
  st.step();
  st.reset();
}

// Each statement its own transaction. Every statement is reset first: an open read snapshot older than the
// last commit could not be upgraded to a write (SQLITE_BUSY_SNAPSHOT).
std::unique_lock<std::mutex> Database::detector_write_lock() {
  std::unique_lock<std::mutex> l(write_mu_);
  detector_->reset_all();
  return l;
}

}  // namespace shaderwatch
