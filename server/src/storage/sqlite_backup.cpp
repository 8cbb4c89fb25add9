#include "storage/sqlite_backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "storage/sql.h"

namespace shaderwatch {

namespace {

struct Closer {
  void operator()(sqlite3* d) const { sqlite3_close_v2(d); }
};
using Handle = std::unique_ptr<sqlite3, Closer>;

Handle open(const std::string& path, int flags, const std::string& what) {
  sqlite3* d = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &d, flags, nullptr);
  Handle h(d);
  if (rc != SQLITE_OK) throw std::runtime_error("cannot open " + what + " " + path + ": " + (d ? sqlite3_errmsg(d) : sqlite3_errstr(rc)));
  sqlite3_busy_timeout(d, 10000);
  return h;
}

void exec(sqlite3* d, const char* sql, const std::string& where) {
  char* err = nullptr;
  if (sqlite3_exec(d, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errmsg(d);
    sqlite3_free(err);
    throw std::runtime_error(where + ": " + msg);
  }
}

std::int64_t one_number(sqlite3* d, const char* sql, const std::string& where) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(d, sql, -1, &st, nullptr) != SQLITE_OK)
    throw std::runtime_error(where + ": " + sqlite3_errmsg(d));
  const std::int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return v;
}

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot sync " + path);
  }
  ::close(fd);
}

}  // namespace

BackupSummary backup_sqlite(const std::string& db, const std::string& to,
                            const std::function<void(const std::string&)>& progress) {
  const auto at = sql::Location::parse(db);
  if (at.engine != sql::Engine::Sqlite)
    throw std::runtime_error("backup copies an SQLite database; back up PostgreSQL with pg_dump (server/README.md)");
  if (!std::filesystem::exists(at.target)) throw std::runtime_error("no database at " + at.target);
  if (std::filesystem::exists(to)) throw std::runtime_error(to + " exists: a backup does not overwrite a file");
  const std::string partial = to + ".partial";
  std::filesystem::remove(partial);  // what an interrupted backup left

  auto src = open(at.target, SQLITE_OPEN_READONLY, "database");
  // One read transaction for the whole copy: every page as of its start, whatever is posted meanwhile.
  exec(src.get(), "BEGIN", "backup: " + at.target);
  const auto runs = one_number(src.get(), "SELECT COUNT(*) FROM runs", "backup: " + at.target);
  if (runs < 0) throw std::runtime_error(at.target + " is not a shaderwatch database (no runs table)");
  {
    auto dst = open(partial, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "backup file");
    sqlite3_backup* b = sqlite3_backup_init(dst.get(), "main", src.get(), "main");
    if (!b) throw std::runtime_error("backup: " + std::string(sqlite3_errmsg(dst.get())));
    auto last = std::chrono::steady_clock::now();
    int rc;
    while ((rc = sqlite3_backup_step(b, 1024)) == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
      if (std::chrono::steady_clock::now() - last > std::chrono::seconds(2)) {
        last = std::chrono::steady_clock::now();
        const int total = sqlite3_backup_pagecount(b);
        progress(std::to_string(total - sqlite3_backup_remaining(b)) + " of " + std::to_string(total) + " pages");
      }
    }
    const int finished = sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE || finished != SQLITE_OK)
      throw std::runtime_error("backup of " + at.target + " failed: " + sqlite3_errstr(rc == SQLITE_DONE ? finished : rc));
    // The copy is a database of its own: one file, checked before it takes the name.
    exec(dst.get(), "PRAGMA journal_mode=DELETE", "backup file " + partial);
    if (one_number(dst.get(), "SELECT COUNT(*) FROM runs", "backup file " + partial) != runs)
      throw std::runtime_error("backup file " + partial + " does not hold the runs it copied");
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(dst.get(), "PRAGMA quick_check", -1, &st, nullptr);
    const bool ok = st && sqlite3_step(st) == SQLITE_ROW &&
                    std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) == "ok";
    sqlite3_finalize(st);
    if (!ok) throw std::runtime_error("backup file " + partial + " fails SQLite's quick_check");
  }
  exec(src.get(), "COMMIT", "backup: " + at.target);
  sync_file(partial);
  std::filesystem::rename(partial, to);
  sync_file(std::filesystem::path(to).parent_path().empty() ? "." : std::filesystem::path(to).parent_path().string());
  return {static_cast<std::uint64_t>(std::filesystem::file_size(to)), static_cast<std::uint64_t>(runs)};
}

}  // namespace shaderwatch
