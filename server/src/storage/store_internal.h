// Private pieces shared by the Store's translation units.
#pragma once

#include <chrono>
#include <cstring>

#include "storage/store.h"
#include "ingest/benchmark_name.h"
#include "storage/sql.h"

namespace shaderwatch {

struct Store::Window {
  struct Pt {
    std::int64_t started_ms = 0, run_id = 0;
    double value = 0;
    std::vector<double> reps;
  };
  std::vector<Pt> pts;  // time order, at most detect.window + 1
};

class Store::ReaderLease {
 public:
  ReaderLease(Store& s, std::unique_ptr<sql::Conn> c) : s_(s), c_(std::move(c)) {}
  ~ReaderLease() {
    if (!c_) return;
    c_->reset_all();
    std::lock_guard lk(s_.read_mu_);
    s_.readers_.push_back(std::move(c_));
    s_.read_cv_.notify_one();
  }
  ReaderLease(ReaderLease&& o) noexcept : s_(o.s_), c_(std::move(o.c_)) {}
  sql::Conn& operator*() { return *c_; }
  sql::Conn* operator->() { return c_.get(); }

 private:
  Store& s_;
  std::unique_ptr<sql::Conn> c_;
};

// The writer mutex, plus a reset of the writer's statements on release (see Conn::reset_all).
struct WriteLock {
  std::unique_lock<std::mutex> lk;
  sql::Conn& c;
  WriteLock(std::mutex& m, sql::Conn& conn) : lk(m), c(conn) {}
  ~WriteLock() { c.reset_all(); }
};

inline std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
inline std::uint64_t mono_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// Repetitions are stored as a blob of little-endian doubles (the host order on every target).
inline std::string pack_reps(const std::vector<double>& v) {
  std::string s(v.size() * sizeof(double), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  return s;
}
inline std::vector<double> unpack_reps(std::string_view b) {
  std::vector<double> v(b.size() / sizeof(double));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(double));
  return v;
}

// Incremental SHA-256 (OpenSSL EVP), for hashing a parsed run without re-serialising it.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  // Each field is length-prefixed, so ("ab","c") and ("a","bc") differ.
  void field(std::string_view s);
  void field(double v);
  void field(std::int64_t v);
  std::string hex();

 private:
  void raw(const void* p, std::size_t n);
  void* ctx_;
};

// Kernel family / variant / configuration of a name: shaderwatch/benchmark_name.hpp.
using shaderwatch::NameParts;
using shaderwatch::split_name;

}  // namespace shaderwatch
