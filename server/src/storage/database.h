// The database as the server's stages share it: one writer connection (one writer per process), a pool of
// readers, and the detector's own connection, so that a run's detection overlaps the next run's ingest.
// Connecting migrates the schema (storage/migrations.h).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "storage/main_history.h"
#include "storage/series_names.h"
#include "storage/sql.h"

namespace shaderwatch {

struct DatabaseOptions {
  // An SQLite file (a path, or sqlite:PATH) or a PostgreSQL database (postgresql://..., libpq's URI).
  std::string db = "shaderwatch.db";
  std::size_t readers = 4;       // pooled read-only connections (SQLite: WAL lets them read beside the writer)
  std::uint64_t max_db_mib = 0;  // SQLite only. 0: as large as the disk allows; else writes past it fail (507)
};

// The writer connection under the write mutex; its statements are reset on release (see Conn::reset_all).
class WriteLock {
 public:
  WriteLock(std::mutex& m, sql::Conn& conn) : lk_(m), c_(&conn) {}
  WriteLock(WriteLock&& o) noexcept : lk_(std::move(o.lk_)), c_(std::exchange(o.c_, nullptr)) {}
  WriteLock& operator=(WriteLock&&) = delete;
  ~WriteLock() {
    if (c_) c_->reset_all();
  }
  sql::Conn& conn() { return *c_; }

 private:
  std::unique_lock<std::mutex> lk_;
  sql::Conn* c_;
};

class Database {
 public:
  // Throws std::runtime_error for a location it cannot open or a schema newer than this server.
  explicit Database(const DatabaseOptions& opts);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  int schema_version();
  // Where the data lives, for messages: the file, or the URI without its password.
  const std::string& location() const { return location_; }

  // A pooled reader, returned to the pool when the lease ends; waits while every reader is lent.
  class ReaderLease {
   public:
    ReaderLease(Database& db, std::unique_ptr<sql::Conn> c) : db_(db), c_(std::move(c)) {}
    ReaderLease(ReaderLease&& o) noexcept : db_(o.db_), c_(std::move(o.c_)) {}
    ~ReaderLease();
    sql::Conn& operator*() { return *c_; }
    sql::Conn* operator->() { return c_.get(); }

   private:
    Database& db_;
    std::unique_ptr<sql::Conn> c_;
  };
  ReaderLease reader();
  std::size_t reader_count() const { return reader_count_; }  // the pool's
  // A trivial read on a pooled reader: returns when the database answers.
  void ping();

  WriteLock write() { return WriteLock(write_mu_, *writer_); }

  // Detection: its connection, used only under detect_mutex(); its writes (rare: alerts) each take
  // detector_write_lock(), the writer mutex, so they never interleave with an ingest's transaction.
  std::mutex& detect_mutex() { return detect_mu_; }
  sql::Conn& detector() { return *detector_; }
  // Detection's own reader, also only under detect_mutex(): the single-run gate is judged on it beside detection's
  // writes. Its own rather than a pooled one, so what it has read (and allocated) stays with it from post to post.
  sql::Conn* detector_reader() { return detector_reader_.get(); }
  std::unique_lock<std::mutex> detector_write_lock();

  // The newest main points of each series (main_history.h).
  MainHistory* main_history() { return &main_history_; }
  // Each series' benchmark name (series_names.h).
  SeriesNames& series_names() { return series_names_; }

 private:
  std::string location_;
  std::mutex write_mu_;  // one writer per process (SQLite serialises writers anyway: this avoids busy waits)
  std::unique_ptr<sql::Conn> writer_;
  std::mutex detect_mu_;
  std::unique_ptr<sql::Conn> detector_;
  std::unique_ptr<sql::Conn> detector_reader_;
  std::mutex read_mu_;
  std::condition_variable read_cv_;
  std::vector<std::unique_ptr<sql::Conn>> readers_;
  std::size_t reader_count_ = 0;
  MainHistory main_history_;
  SeriesNames series_names_;
};

}  // namespace shaderwatch
