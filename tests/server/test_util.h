// Shared fixtures: temp dirs, an in-process server on 127.0.0.1 with a real SQLite file, an HTTP
// client, and generators of Google Benchmark-shaped documents.
#pragma once

#include <httplib.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "http/http_server.h"
#include "service/store.h"
#include "storage/result_sets.h"
#include "storage/sql.h"

namespace swt {

using nlohmann::json;

// Concatenation without `"literal" + std::string`, which trips GCC 12's bogus -Wrestrict
// (PR105329) under -O2 -Werror.
template <class... A>
std::string cat(const A&... a) {
  std::string out;
  (out.append(a), ...);
  return out;
}

// Set by tests/server/with_postgres.sh: the Unix-socket directory of a throwaway PostgreSQL cluster
// A database set back to schema version `v` for a migration test (made by this server, then told it is
// older): the columns migrations after `v` add are dropped, so that they run again.
// Before 9, a run's rows were a table row each (results) and a point kept its repetitions (points.reps, doubles):
// the packs are unpacked into them, in document order, as a server of then had written them.
inline void unpack_into_result_rows(shaderwatch::sql::Conn& c) {
  c.exec(c.ddl(R"SQL(
CREATE TABLE results(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  idx INTEGER NOT NULL,
  run_type TEXT NOT NULL CHECK(run_type IN ('iteration','aggregate')),
  aggregate_name TEXT, repetition_index INTEGER NOT NULL, repetitions INTEGER NOT NULL,
  threads INTEGER NOT NULL, iterations INTEGER NOT NULL,
  real_ns REAL, cpu_ns REAL, time_unit TEXT NOT NULL, label TEXT NOT NULL,
  error_occurred INTEGER NOT NULL, error_message TEXT NOT NULL, counters TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pass'
    CHECK(status IN ('pass','flake','skip','xfail','xpass','unsupported','fail')));
CREATE INDEX results_run ON results(run_id, benchmark_id);
ALTER TABLE points ADD COLUMN reps BLOB NOT NULL DEFAULT '';
)SQL"));
  std::vector<std::int64_t> runs;
  auto& ids = c.q("SELECT id FROM runs ORDER BY id");
  while (ids.step()) runs.push_back(ids.i64(0));
  ids.reset();
  for (const auto run : runs) {
    struct Flat {
      std::int64_t benchmark;
      shaderwatch::StoredRow row;
    };
    std::vector<Flat> flat;
    for (auto& b : shaderwatch::run_rows(c, run)) {
      const auto reps = shaderwatch::repetition_times(b.rows);
      std::string blob(reps.size() * sizeof(double), '\0');
      if (!reps.empty()) std::memcpy(blob.data(), reps.data(), blob.size());
      c.q("UPDATE points SET reps=? WHERE run_id=? AND series_id IN (SELECT id FROM series WHERE benchmark_id=?)")
          .bind_blob(1, blob.data(), blob.size()).bind(2, run).bind(3, b.benchmark_id).run();
      for (auto& r : b.rows) flat.push_back({b.benchmark_id, std::move(r)});
    }
    std::sort(flat.begin(), flat.end(), [](const Flat& a, const Flat& b) { return a.row.idx < b.row.idx; });
    for (const auto& [benchmark, r] : flat) {
      auto& ins = c.q("INSERT INTO results(run_id, benchmark_id, idx, run_type, aggregate_name, repetition_index,"
                      " repetitions, threads, iterations, real_ns, cpu_ns, time_unit, label, error_occurred, error_message,"
                      " counters, status) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      ins.bind(1, run).bind(2, benchmark).bind(3, r.idx).bind(4, r.aggregate ? "aggregate" : "iteration")
          .bind(5, r.aggregate_name).bind(6, r.repetition_index).bind(7, r.repetitions).bind(8, r.threads)
          .bind(9, r.iterations).bind(10, r.real_ns).bind(11, r.cpu_ns).bind(12, r.time_unit).bind(13, r.label)
          .bind(14, std::int64_t{r.error}).bind(15, r.error_message).bind(16, r.counters.dump())
          .bind(17, shaderwatch::contract::row_status_word(r.status)).run();
    }
  }
  c.exec("DROP TABLE result_sets; DROP TABLE row_shapes;");
}

inline void set_back_to_schema(shaderwatch::sql::Conn& c, int v) {
  if (v < 12 && c.shared()) {  // PostgreSQL's points keyed by (series, time, run) again, with a run index
    c.exec("ALTER TABLE points DROP CONSTRAINT points_pkey; DROP INDEX points_series;"
           " ALTER TABLE points ADD PRIMARY KEY(series_id, started_ms, run_id);"
           " CREATE INDEX points_run ON points(run_id, series_id)");
  }
  if (v < 11 && c.shared()) {  // PostgreSQL's 8-byte integers again (the columns' order is left as it is)
    for (const char* column : {"series_id", "run_id", "n_reps", "n_errors", "on_main"})
      c.exec(cat("ALTER TABLE points ALTER COLUMN ", column, " TYPE BIGINT"));
    for (const char* column : {"run_id", "benchmark_id", "first_idx", "shape_id", "has_iteration"})
      c.exec(cat("ALTER TABLE result_sets ALTER COLUMN ", column, " TYPE BIGINT"));
  }
  if (v < 10 && v >= 7) c.exec("ALTER TABLE run_compiled DROP COLUMN bound_by");
  if (v < 9) {
    unpack_into_result_rows(c);
    c.exec("ALTER TABLE points DROP COLUMN spread");
  }
  if (v < 7) {
    c.exec("DROP TABLE run_compiled");
    c.exec("DROP TABLE compiled");
  }
  if (v == 7) c.exec("ALTER TABLE run_compiled DROP COLUMN operation");
  if (v < 8) c.exec("ALTER TABLE points DROP COLUMN spirv");
  if (v < 5) c.exec("ALTER TABLE results DROP COLUMN status");
  // Migration 6 only widened a CHECK constraint: a database of version 5 holds the same columns.
  c.set_schema_version(v);
}

// whose superuser is `sw`. Then every test's database is a PostgreSQL database of that cluster.
inline const char* postgres_socket_dir() { return std::getenv("SW_TEST_POSTGRES_SOCKET"); }
inline bool on_postgres() { return postgres_socket_dir() != nullptr; }
// libpq's URI of database `name` on that cluster (the socket directory percent-encoded as the host).
inline std::string postgres_uri(const std::string& name) {
  std::string host;
  for (const char ch : std::string(postgres_socket_dir())) host += ch == '/' ? std::string("%2F") : std::string(1, ch);
  return cat("postgresql://sw@", host, "/", name);
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "swtest.XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    for (const auto& name : databases_) {
      try {
        admin().exec(cat("DROP DATABASE IF EXISTS ", name, " WITH (FORCE)"));
      } catch (...) {
      }
    }
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  // A database for the Store, as --db takes it: an SQLite file here, or a new PostgreSQL database
  // (dropped with this directory) when the tests run beside a cluster.
  std::string db(const std::string& name) {
    if (!on_postgres()) return file(name);
    std::string db_name = "swt_";
    for (const char ch : cat(path.filename().string().substr(7), "_", name))
      db_name += std::isalnum(static_cast<unsigned char>(ch)) ? static_cast<char>(std::tolower(ch)) : '_';
    admin().exec(cat("CREATE DATABASE ", db_name));
    databases_.push_back(db_name);
    return postgres_uri(db_name);
  }

 private:
  static shaderwatch::sql::Conn& admin() {
    static auto c = shaderwatch::sql::connect({shaderwatch::sql::Engine::Postgresql, postgres_uri("postgres")}, shaderwatch::sql::Role::Writer);
    return *c;
  }
  std::vector<std::string> databases_;
};

struct TestServer {
  std::unique_ptr<shaderwatch::Store> store;
  std::unique_ptr<shaderwatch::HttpServer> http;
  std::string token;
  int port = 0;

  explicit TestServer(const std::string& db, shaderwatch::ServerOptions o = {}, bool make_token = true, shaderwatch::StoreOptions so = {}) {
    so.db = db;
    store = std::make_unique<shaderwatch::Store>(so);
    o.bind = "127.0.0.1";
    o.port = 0;
    http = std::make_unique<shaderwatch::HttpServer>(*store, o);
    port = http->start();
    // Admin: the tests post runs and triage alerts with it.
    if (make_token) token = store->tokens().create("test-" + std::to_string(port), shaderwatch::TokenScope::Admin);
  }
  ~TestServer() { stop(); }
  void stop() {
    if (http) http->stop();
    http.reset();
    store.reset();
  }
  std::unique_ptr<httplib::Client> client() const {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port);
    c->set_read_timeout(60, 0);
    return c;
  }
  httplib::Result post(const std::string& body, const std::string& tok) const {
    auto c = client();
    httplib::Headers h;
    if (!tok.empty()) h.emplace("Authorization", "Bearer " + tok);
    return c->Post("/api/v1/runs", h, body, "application/json");
  }
  httplib::Result post(const std::string& body) const { return post(body, token); }
  json get(const std::string& path, int expect = 200) const {
    auto c = client();
    auto r = c->Get(path);
    EXPECT_TRUE(r) << path;
    if (!r) return nullptr;
    EXPECT_EQ(r->status, expect) << path << ": " << r->body;
    return json::parse(r->body);
  }
};

// Runs the sample benchmark binary (a real Google Benchmark program) and returns its JSON.
inline std::string run_sample_bench(const std::string& env = "", int reps = 3) {
  const std::string cmd = env + " " + SW_SAMPLE_BENCH + " --benchmark_format=json --benchmark_repetitions=" +
                          std::to_string(reps) + " --benchmark_min_time=0.005 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) throw std::runtime_error("popen failed");
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  if (pclose(f) != 0) throw std::runtime_error("sample bench failed");
  return out;
}

inline std::string wrap(const std::string& doc, const std::string& run_id, const std::string& commit,
                        const std::string& started_at = "2026-01-01T00:00:00Z") {
  return json{{"run", {{"id", run_id}, {"commit", commit}, {"branch", "main"}, {"runner", "r1"},
                       {"job_url", "https://ci.example/job/1"}, {"started_at", started_at}}},
              {"benchmark", json::parse(doc)}}
      .dump();
}

// A synthetic Google Benchmark document: per benchmark name, repetitions of real_time (ns).
struct Gpu {
  std::string name = "GPU A", vendor = "0x10de", device = "0x2684", driver = "580.1.0.0";
};
inline json make_doc(const Gpu& g, const std::vector<std::pair<std::string, std::vector<double>>>& benches,
                     bool aggregates = true) {
  json b = json::array();
  int fam = 0;
  for (const auto& [name, reps] : benches) {
    for (std::size_t i = 0; i < reps.size(); ++i)
      b.push_back({{"name", name}, {"family_index", fam}, {"per_family_instance_index", 0},
                   {"run_name", name}, {"run_type", "iteration"}, {"repetitions", reps.size()},
                   {"repetition_index", i}, {"threads", 1}, {"iterations", 1000},
                   {"real_time", reps[i]}, {"cpu_time", reps[i] * 0.99}, {"time_unit", "ns"},
                   {"items_per_second", 1e9 / reps[i]}});
    if (aggregates) {
      double mean = 0;
      for (double r : reps) mean += r;
      mean /= static_cast<double>(reps.size());
      for (const char* agg : {"mean", "median", "stddev"})
        b.push_back({{"name", name + "_" + agg}, {"family_index", fam}, {"per_family_instance_index", 0},
                     {"run_name", name}, {"run_type", "aggregate"}, {"repetitions", reps.size()},
                     {"threads", 1}, {"aggregate_name", agg}, {"aggregate_unit", "time"},
                     {"iterations", reps.size()}, {"real_time", mean}, {"cpu_time", mean},
                     {"time_unit", "ns"}});
    }
    ++fam;
  }
  return {{"context", {{"date", "2026-01-01T00:00:00+00:00"}, {"host_name", "runner"},
                       {"sw_device_name", g.name}, {"sw_vendor_id", g.vendor}, {"sw_device_id", g.device},
                       {"sw_driver_name", "NVIDIA"}, {"sw_driver_version", g.driver},
                       {"sw_api_version", "1.4.312"}}},
          {"benchmarks", b}};
}

inline std::string iso_at(int minute_index) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "2026-01-%02dT%02d:%02d:00Z", 1 + minute_index / 1440,
                (minute_index / 60) % 24, minute_index % 60);
  return buf;
}

inline std::string wrap_doc(const json& doc, const std::string& run_id, const std::string& commit,
                            const std::string& started_at) {
  return json{{"run", {{"id", run_id}, {"commit", commit}, {"runner", "runner-1"}, {"started_at", started_at}}},
              {"benchmark", doc}}
      .dump();
}

}  // namespace swt
