// Thin RAII wrapper over the SQLite C API: prepared, parameterised statements only, cached per
// connection so hot paths do not re-parse SQL.
#pragma once

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

#include "shaderwatch/store.hpp"

namespace sw::sql {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Stmt {
 public:
  Stmt(sqlite3* db, std::string_view sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                           &s_, nullptr) != SQLITE_OK)
      throw Error(std::string("prepare failed: ") + sqlite3_errmsg(db) + " in: " + std::string(sql));
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(s_, i, v)); }
  Stmt& bind(int i, int v) { return check(sqlite3_bind_int64(s_, i, v)); }
  Stmt& bind(int i, double v) { return check(sqlite3_bind_double(s_, i, v)); }
  Stmt& bind(int i, std::string_view v) {
    return check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind_blob(int i, const void* p, std::size_t n) {
    return check(sqlite3_bind_blob(s_, i, p, static_cast<int>(n), SQLITE_TRANSIENT));
  }
  Stmt& bind_null(int i) { return check(sqlite3_bind_null(s_, i)); }
  template <class T>
  Stmt& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind_null(i);
  }

  // True while there is a row; false when done.
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    if (rc == SQLITE_FULL) throw StorageFull(std::string("the database is full: ") + sqlite3_errmsg(db_));
    throw Error(std::string("step failed: ") + sqlite3_errmsg(db_));
  }
  void run() {
    while (step()) {
    }
  }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

  std::int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
  double f64(int c) const { return sqlite3_column_double(s_, c); }
  bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  std::string text(int c) const {
    const auto* p = sqlite3_column_text(s_, c);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
             : std::string();
  }
  std::string_view blob(int c) const {
    const void* p = sqlite3_column_blob(s_, c);
    return p ? std::string_view(static_cast<const char*>(p),
                                static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
             : std::string_view();
  }

 private:
  Stmt& check(int rc) {
    if (rc != SQLITE_OK) throw Error(std::string("bind failed: ") + sqlite3_errmsg(db_));
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

class Conn {
 public:
  explicit Conn(const std::string& path, bool readonly = false) {
    const int flags = (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                      SQLITE_OPEN_NOMUTEX;
    // A new database is private to its owner (it holds the tokens' hashes); SQLite would create it 0644,
    // and gives its -wal and -shm files the database file's mode.
    if (!readonly && !path.empty() && path != ":memory:" && !path.starts_with("file:")) {
      const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
      if (fd >= 0) ::close(fd);
    }
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw Error("cannot open database " + path + ": " + msg);
    }
    sqlite3_busy_timeout(db_, 10000);
    exec("PRAGMA foreign_keys=ON");
  }
  ~Conn() {
    cache_.clear();
    sqlite3_close(db_);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  void exec(const std::string& sql) {
    char* err = nullptr;
    if (const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err); rc != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      if (rc == SQLITE_FULL) throw StorageFull("the database is full: " + msg);
      throw Error("exec failed: " + msg);
    }
  }
  // A cached statement, reset and with bindings cleared.
  Stmt& q(const std::string& sql) {
    auto it = cache_.find(sql);
    if (it == cache_.end()) it = cache_.emplace(sql, std::make_unique<Stmt>(db_, sql)).first;
    it->second->reset();
    return *it->second;
  }
  // Resets every statement still mid-step: an un-reset statement holds its read snapshot open,
  // which hides newer commits from this connection and stops WAL checkpoints.
  void reset_all() {
    for (sqlite3_stmt* st = sqlite3_next_stmt(db_, nullptr); st; st = sqlite3_next_stmt(db_, st))
      if (sqlite3_stmt_busy(st)) sqlite3_reset(st);
  }
  std::int64_t last_id() const { return sqlite3_last_insert_rowid(db_); }
  sqlite3* raw() { return db_; }

 private:
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, std::unique_ptr<Stmt>> cache_;
};

// Rolls back unless committed: one transaction per run, all or nothing.
class Tx {
 public:
  explicit Tx(Conn& c, bool immediate = true) : c_(c) {
    c_.exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN");
  }
  ~Tx() {
    if (!done_) {
      try {
        c_.exec("ROLLBACK");
      } catch (...) {
      }
    }
  }
  void commit() {
    c_.exec("COMMIT");
    done_ = true;
  }

 private:
  Conn& c_;
  bool done_ = false;
};

}  // namespace sw::sql
