// The SQLite engine: one file, WAL so readers run beside the one writer.
#include <fcntl.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <unordered_map>

#include "storage/storage_errors.h"
#include "storage/sql.h"

namespace shaderwatch::sql {

namespace {

class SqliteStmt final : public Stmt {
 public:
  SqliteStmt(sqlite3* db, std::string_view sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s_,
                           nullptr) != SQLITE_OK)
      throw Error(std::string("prepare failed: ") + sqlite3_errmsg(db) + " in: " + std::string(sql));
  }
  ~SqliteStmt() override { sqlite3_finalize(s_); }

  bool step() override {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    if (rc == SQLITE_FULL) throw StorageFull(std::string("the database is full: ") + sqlite3_errmsg(db_));
    throw Error(std::string("step failed: ") + sqlite3_errmsg(db_));
  }
  void reset() override {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  std::int64_t changes() const override { return sqlite3_changes64(db_); }

  std::int64_t i64(int c) const override { return sqlite3_column_int64(s_, c); }
  double f64(int c) const override { return sqlite3_column_double(s_, c); }
  bool null(int c) const override { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  std::string text(int c) const override {
    const auto* p = sqlite3_column_text(s_, c);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
             : std::string();
  }
  std::string_view blob(int c) const override {
    const void* p = sqlite3_column_blob(s_, c);
    return p ? std::string_view(static_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
             : std::string_view();
  }
  int columns() const override { return sqlite3_column_count(s_); }
  std::string column_name(int c) const override { return sqlite3_column_name(s_, c); }
  ColumnType type(int c) const override {
    switch (sqlite3_column_type(s_, c)) {
      case SQLITE_INTEGER: return ColumnType::Integer;
      case SQLITE_FLOAT: return ColumnType::Real;
      case SQLITE_TEXT: return ColumnType::Text;
      case SQLITE_BLOB: return ColumnType::Blob;
      default: return ColumnType::Null;
    }
  }

 private:
  void bind_i64(int i, std::int64_t v) override { check(sqlite3_bind_int64(s_, i, v)); }
  void bind_f64(int i, double v) override { check(sqlite3_bind_double(s_, i, v)); }
  void bind_text(int i, std::string_view v) override {
    check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  void bind_bytes(int i, const void* p, std::size_t n) override {
    check(sqlite3_bind_blob(s_, i, p, static_cast<int>(n), SQLITE_TRANSIENT));
  }
  void bind_none(int i) override { check(sqlite3_bind_null(s_, i)); }
  void check(int rc) {
    if (rc != SQLITE_OK) throw Error(std::string("bind failed: ") + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

// Takes group and other permissions off a file (nothing where it does not exist). Where the process cannot (the
// file is another user's), it says so on stderr and goes on: a database shared on purpose still opens.
void make_private(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || (st.st_mode & 077) == 0) return;
  if (::chmod(file.c_str(), st.st_mode & 07700) == 0) return;
  char mode[8];
  std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
  std::cerr << "shaderwatch-server: warning: cannot make " << file << " (mode " << mode
            << ") private to its owner: " << std::strerror(errno) << "\n";
}

// SQLite counts every allocation for sqlite3_memory_used() under a global mutex, which we never read: off, before
// SQLite initialises (the first connection), it took 1.4 ms of the 31 of CPU per post (server/README.md, "CPU per
// post"). Where SQLite was initialised already (SQLITE_MISUSE), the counting stays on: slower, not wrong.
bool without_memory_statistics() {
  const int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  if (rc != SQLITE_OK && rc != SQLITE_MISUSE)
    throw Error(std::string("sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) failed: ") + sqlite3_errstr(rc));
  return rc == SQLITE_OK;
}

class SqliteConn final : public Conn {
 public:
  SqliteConn(const std::string& path, Role role) {
    // The database is private to its owner (it holds the tokens' hashes): SQLite would create it 0644, and gives
    // its -wal and -shm files the database file's mode. A file an older version created 0644 is made private
    // too, with its -wal and -shm, when the writer opens it.
    if (role == Role::Writer && !path.empty() && path != ":memory:" && !path.starts_with("file:")) {
      const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
      if (fd >= 0) ::close(fd);
      for (const std::string& file : {path, path + "-wal", path + "-shm"}) make_private(file);
    }
    static const bool memory_statistics_off = without_memory_statistics();
    (void)memory_statistics_off;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw Error("cannot open database " + path + ": " + msg);
    }
    sqlite3_busy_timeout(db_, 10000);
    exec("PRAGMA foreign_keys=ON");
    if (role == Role::Writer) {
      // WAL: readers never block the writer; synchronous=NORMAL is durable against process crashes
      // (a power cut may lose the last commits, which CI re-posts idempotently).
      exec("PRAGMA journal_mode=WAL");
      exec("PRAGMA synchronous=NORMAL");
      exec("PRAGMA cache_size=-65536");
      exec("PRAGMA temp_store=MEMORY");
    } else {
      exec("PRAGMA query_only=ON");
      exec("PRAGMA cache_size=-32768");
    }
  }
  ~SqliteConn() override {
    cache_.clear();
    sqlite3_close(db_);
  }

  Engine engine() const override { return Engine::Sqlite; }
  void exec(const std::string& sql) override {
    char* err = nullptr;
    if (const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err); rc != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      if (rc == SQLITE_FULL) throw StorageFull("the database is full: " + msg);
      throw Error("exec failed: " + msg);
    }
  }
  Stmt& q(const std::string& sql) override {
    auto it = cache_.find(sql);
    if (it == cache_.end()) it = cache_.emplace(sql, std::make_unique<SqliteStmt>(db_, sql)).first;
    it->second->reset();
    return *it->second;
  }
  // An un-reset statement holds its read snapshot open, which hides newer commits from this
  // connection and stops WAL checkpoints.
  void reset_all() override {
    for (sqlite3_stmt* st = sqlite3_next_stmt(db_, nullptr); st; st = sqlite3_next_stmt(db_, st))
      if (sqlite3_stmt_busy(st)) sqlite3_reset(st);
  }
  void begin(bool immediate) override { exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN"); }

  int schema_version() override {
    auto& st = q("PRAGMA user_version");
    st.step();
    const int v = static_cast<int>(st.i64(0));
    st.reset();
    return v;
  }
  void set_schema_version(int v) override { exec("PRAGMA user_version=" + std::to_string(v)); }
  std::string ddl(std::string_view sqlite_ddl) const override { return std::string(sqlite_ddl); }
  void lock_in_transaction(std::int64_t) override {}
  bool shared() const override { return false; }
  void follow_copied_ids(std::string_view) override {}  // a rowid is always past the largest
  std::string json_text(std::string_view expr, std::string_view key) const override {
    return concat({"json_extract(", expr, ", '$.", key, "')"});
  }
  std::string json_number(std::string_view expr, std::string_view key) const override {
    return json_text(expr, key);
  }
  std::string contains_param(std::string_view expr) const override {
    return concat({"instr(", expr, ", ?)>0"});
  }
  std::string first_word(std::string_view expr) const override {
    return concat({"substr(", expr, ", 1, instr(", expr, " || ' ', ' ') - 1)"});
  }

 private:
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, std::unique_ptr<SqliteStmt>> cache_;
};

}  // namespace

std::unique_ptr<Conn> connect_sqlite(const std::string& path, Role role) {
  return std::make_unique<SqliteConn>(path, role);
}

void limit_sqlite_size(Conn& c, std::uint64_t max_mib) {
  auto& ps = c.q("PRAGMA page_size");
  const std::int64_t page = ps.step() ? ps.i64(0) : 4096;
  ps.reset();
  c.exec("PRAGMA max_page_count=" + std::to_string(max_mib * (1u << 20) / static_cast<std::uint64_t>(page)));
}

}  // namespace shaderwatch::sql
