// shaderwatch-server-loadtest: measures the performance bars of server/README.md on this machine.
// Not a test (ctest does not run it): it starts an in-process server on 127.0.0.1 with a fresh
// SQLite file (or --db: an empty PostgreSQL database, with --instances servers on it), posts Google
// Benchmark documents from several poster threads until the database holds --results results, then
// times series queries.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "http/http_server.h"
#include "service/store.h"
#include "common/iso8601.h"

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct Opts {
  long results = 1000000;  // iteration results (raw repetitions) to store
  int posters = 4;         // concurrent posting threads, one simulated GPU each
  int benchmarks = 100;    // per run
  int reps = 3;            // repetitions per benchmark
  int queries = 1000;      // series queries timed at the end
  bool detect = true;
  std::string db;          // default: a temp file, removed at exit
  int instances = 1;       // servers on the one database (PostgreSQL only); poster g posts to server g % N
};

// One Google Benchmark document for a GPU, with fresh noise on every call (1% run-to-run,
// 0.33% between repetitions around fixed levels: A/A data). Formatted by hand rather than via
// nlohmann so the posters spend little of the machine's two cores on making load.
std::string make_doc(int gpu, std::mt19937_64& rng, const Opts& o) {
  std::normal_distribution<double> noise(0, 0.01);
  std::string out;
  out.reserve(static_cast<std::size_t>(o.benchmarks) * static_cast<std::size_t>(o.reps + 3) * 330);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"context\":{\"date\":\"2026-01-01T00:00:00+00:00\",\"host_name\":\"load\","
                "\"sw_device_name\":\"Load GPU %d\",\"sw_vendor_id\":\"0x10de\",\"sw_device_id\":\"0x%d\","
                "\"sw_driver_version\":\"580.1.0.0\",\"sw_api_version\":\"1.4.312\"},\"benchmarks\":[",
                gpu, 2000 + gpu);
  out += buf;
  bool first = true;
  for (int k = 0; k < o.benchmarks; ++k) {
    std::snprintf(buf, sizeof buf, "fam%d/var%d/%d/cold", k % 10, k % 4, k);
    const std::string name = buf;
    const double level = 1e4 * (1 + k % 17) * std::exp(noise(rng));
    double sum = 0;
    for (int r = 0; r < o.reps; ++r) {
      const double v = level * std::exp(noise(rng) / 3);
      sum += v;
      std::snprintf(buf, sizeof buf,
                    "%s{\"name\":\"%s\",\"family_index\":%d,\"per_family_instance_index\":0,\"run_name\":\"%s\","
                    "\"run_type\":\"iteration\",\"repetitions\":%d,\"repetition_index\":%d,\"threads\":1,"
                    "\"iterations\":1000,\"real_time\":%.6f,\"cpu_time\":%.6f,\"time_unit\":\"ns\","
                    "\"items_per_second\":%.3f}",
                    first ? "" : ",", name.c_str(), k, name.c_str(), o.reps, r, v, v, 1e9 / v);
      first = false;
      out += buf;
    }
    for (const char* agg : {"mean", "median", "stddev"}) {
      std::snprintf(buf, sizeof buf,
                    ",{\"name\":\"%s_%s\",\"family_index\":%d,\"per_family_instance_index\":0,\"run_name\":\"%s\","
                    "\"run_type\":\"aggregate\",\"repetitions\":%d,\"threads\":1,\"aggregate_name\":\"%s\","
                    "\"aggregate_unit\":\"time\",\"iterations\":%d,\"real_time\":%.6f,\"cpu_time\":%.6f,"
                    "\"time_unit\":\"ns\"}",
                    name.c_str(), agg, k, name.c_str(), o.reps, agg, o.reps, sum / o.reps, sum / o.reps);
      out += buf;
    }
  }
  out += "]}";
  return out;
}

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "missing value for " << a << "\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--results") o.results = std::stol(next());
    else if (a == "--posters") o.posters = std::stoi(next());
    else if (a == "--benchmarks") o.benchmarks = std::stoi(next());
    else if (a == "--reps") o.reps = std::stoi(next());
    else if (a == "--queries") o.queries = std::stoi(next());
    else if (a == "--no-detect") o.detect = false;
    else if (a == "--db") o.db = next();
    else if (a == "--instances") o.instances = std::stoi(next());
    else {
      std::cout << "usage: shaderwatch-server-loadtest [--results N] [--posters N] [--benchmarks N] [--reps N]\n"
                   "         [--queries N] [--no-detect] [--db PATH|postgresql://...] [--instances N]\n"
                   "Ingests N results (raw repetitions) through HTTP on 127.0.0.1 with several posters,\n"
                   "then times series queries; prints results/s, query p50/p99 and detection vs ingest time.\n"
                   "--db: an SQLite file to create, or an empty PostgreSQL database; --instances N (PostgreSQL):\n"
                   "N servers on that database, the posters spread over them.\n";
      return a == "--help" ? 0 : 2;
    }
  }
  if (o.posters < 1 || o.benchmarks < 1 || o.reps < 1 || o.results < 1 || o.instances < 1) {
    std::cerr << "values must be positive\n";
    return 2;
  }
  const bool postgres = o.db.starts_with("postgresql://") || o.db.starts_with("postgres://");
  if (o.instances > 1 && !postgres) {
    std::cerr << "--instances needs a PostgreSQL --db: an SQLite file has one server\n";
    return 2;
  }
  const bool temp_db = o.db.empty();
  if (temp_db) o.db = (std::filesystem::temp_directory_path() / ("swload-" + std::to_string(getpid()) + ".db")).string();
  if (!postgres) std::filesystem::remove(o.db);

  shaderwatch::StoreOptions so;
  so.db = o.db;
  so.detect_on_ingest = o.detect;
  std::vector<std::unique_ptr<shaderwatch::Store>> stores;
  std::vector<std::unique_ptr<shaderwatch::HttpServer>> servers;
  std::vector<int> ports;
  for (int i = 0; i < o.instances; ++i) {
    stores.push_back(std::make_unique<shaderwatch::Store>(so));
    shaderwatch::ServerOptions sopts;
    sopts.port = 0;
    servers.push_back(std::make_unique<shaderwatch::HttpServer>(*stores.back(), sopts));
    ports.push_back(servers.back()->start());
  }
  const int port = ports[0];
  const std::string token = stores[0]->tokens().create("load", shaderwatch::TokenScope::Upload);

  const long per_run = static_cast<long>(o.benchmarks) * o.reps;
  const long runs = (o.results + per_run - 1) / per_run;
  const long runs_per_poster = (runs + o.posters - 1) / o.posters;
  std::printf("ingest: %ld runs x %ld results (%d benchmarks x %d reps, +%d aggregate rows), %d posters, detection %s,"
              " %d server(s) on %s\n",
              runs_per_poster * o.posters, per_run, o.benchmarks, o.reps, o.benchmarks * 3, o.posters,
              o.detect ? "on" : "off", o.instances, stores[0]->location().c_str());

  std::atomic<long> failures{0}, posted{0};
  const auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int g = 0; g < o.posters; ++g)
    ts.emplace_back([&, g] {
      httplib::Client c("127.0.0.1", ports[static_cast<std::size_t>(g % o.instances)]);
      c.set_bearer_token_auth(token);
      c.set_keep_alive(true);
      c.set_tcp_nodelay(true);
      c.set_read_timeout(120, 0);
      std::mt19937_64 rng(static_cast<std::uint64_t>(g) + 1);
      for (long i = 0; i < runs_per_poster; ++i) {
        const std::string body = "{\"run\":{\"id\":\"g" + std::to_string(g) + "-" + std::to_string(i) +
                                 "\",\"commit\":\"c" + std::to_string(i) + "\",\"runner\":\"load\",\"started_at\":\"" +
                                 shaderwatch::format_iso8601_ms(1767225600000LL + i * 60000) + "\"},\"benchmark\":" +
                                 make_doc(g, rng, o) + "}";
        auto r = c.Post("/api/v1/runs", body, "application/json");
        if (!r || r->status != 201) {
          if (failures++ < 3)
            std::cerr << "post failed: " << (r ? std::to_string(r->status) + " " + r->body : httplib::to_string(r.error()))
                      << "\n";
        } else {
          posted++;
        }
      }
    });
  for (auto& t : ts) t.join();
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  shaderwatch::StoreStats st;
  for (const auto& s : stores) {
    const auto one = s->stats();
    st.parse_ns += one.parse_ns;
    st.ingest_ns += one.ingest_ns;
    st.detect_ns += one.detect_ns;
  }
  st.runs = static_cast<std::uint64_t>(posted.load());
  st.results = static_cast<std::uint64_t>(posted.load() * (per_run + o.benchmarks * 3));
  const double iter_results = static_cast<double>(posted.load() * per_run);
  std::printf("  %ld runs stored, %ld failed, %.1f s wall\n", posted.load(), failures.load(), secs);
  std::printf("  ingest throughput: %.0f results/s (raw repetitions); %.0f rows/s incl. aggregates\n",
              iter_results / secs, static_cast<double>(st.results) / secs);
  const double n = static_cast<double>(std::max<std::uint64_t>(1, st.runs));
  std::printf("  per run, server side: parse+validate %.2f ms, store transaction %.2f ms, detection %.2f ms\n",
              st.parse_ns / n / 1e6, st.ingest_ns / n / 1e6, st.detect_ns / n / 1e6);
  std::printf("  detection / ingest (parse + transaction) = %.2f\n",
              static_cast<double>(st.detect_ns) / static_cast<double>(std::max<std::uint64_t>(1, st.parse_ns + st.ingest_ns)));

  // Series queries: random series, default limit (1000 points), one keep-alive client.
  httplib::Client c("127.0.0.1", port);
  c.set_keep_alive(true);
  c.set_tcp_nodelay(true);
  auto list = c.Get("/api/v1/series?limit=10000");
  const auto series = json::parse(list->body)["series"];
  std::mt19937_64 rng(42);
  std::vector<double> lat;
  std::size_t points = 0;
  for (int q = 0; q < o.queries && !series.empty(); ++q) {
    const auto id = series[rng() % series.size()]["id"].get<std::int64_t>();
    const auto q0 = Clock::now();
    auto r = c.Get("/api/v1/series/" + std::to_string(id));
    lat.push_back(std::chrono::duration<double, std::milli>(Clock::now() - q0).count());
    if (!r || r->status != 200) {
      std::cerr << "series query failed\n";
      return 1;
    }
    if (q == 0) points = json::parse(r->body)["points"].size();
  }
  std::printf("series query (%zu series, %zu points per answer, %zu queries, db holds %.0f results): "
              "p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
              series.size(), points, lat.size(), iter_results, pct(lat, 50), pct(lat, 99), pct(lat, 100));
  // Every page's and CI's answer, timed the same way: p50 and max of 20 asks, after one unwarmed ask.
  const std::string last = "g0-" + std::to_string(runs_per_poster - 1), before_last = "g0-" + std::to_string(std::max(0L, runs_per_poster - 2));
  std::printf("answers (20 asks each, one keep-alive client):\n");
  for (const std::string& path : {"/api/v1/runs/" + last + "/verdict", std::string("/api/v1/summary"),
                                 "/api/v1/runs/" + last, "/api/v1/runs/" + last + "/results",
                                 "/api/v1/compare?base=" + before_last + "&contender=" + last,
                                 std::string("/api/v1/alerts"), std::string("/api/v1/correctness"),
                                 std::string("/api/v1/runs?limit=50")}) {
    std::vector<double> t;
    double first = 0;
    for (int k = 0; k <= 20; ++k) {
      const auto q0 = Clock::now();
      auto r = c.Get(path);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - q0).count();
      if (!r || r->status != 200) {
        std::cerr << path << " failed: " << (r ? std::to_string(r->status) + " " + r->body : httplib::to_string(r.error())) << "\n";
        return 1;
      }
      if (k == 0) first = ms;
      else t.push_back(ms);
    }
    std::printf("  %-60s first %8.2f ms, p50 %8.2f ms, max %8.2f ms\n", path.c_str(), first, pct(t, 50), pct(t, 100));
  }
  // What CI and the next person see after each of 20 more posts, one at a time on GPU 0 (its history full):
  // the post with its detection, its verdict (judged now), and the overview (which judges the new run only).
  {
    httplib::Client p("127.0.0.1", port);
    p.set_bearer_token_auth(token);
    p.set_read_timeout(120, 0);
    std::mt19937_64 more(99);
    const auto timed = [&](const std::string& path) {
      const auto t = Clock::now();
      auto a = c.Get(path);
      if (!a || a->status != 200) std::cerr << path << " failed\n";
      return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    };
    std::vector<double> post_ms, detect_ms, verdict_ms, overview_ms;
    for (long k = runs_per_poster; k < runs_per_poster + 20; ++k) {
      const std::string id = "g0-" + std::to_string(k);
      const std::string body = "{\"run\":{\"id\":\"" + id + "\",\"commit\":\"next" + std::to_string(k) +
                               "\",\"runner\":\"load\",\"started_at\":\"" +
                               shaderwatch::format_iso8601_ms(1767225600000LL + k * 60000) + "\"},\"benchmark\":" +
                               make_doc(0, more, o) + "}";
      const auto detect_before = stores[0]->stats().detect_ns;
      const auto q0 = Clock::now();
      auto r = p.Post("/api/v1/runs", body, "application/json");
      post_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - q0).count());
      if (!r || r->status != 201) {
        std::cerr << "an extra post failed\n";
        return 1;
      }
      detect_ms.push_back(static_cast<double>(stores[0]->stats().detect_ns - detect_before) / 1e6);
      verdict_ms.push_back(timed("/api/v1/runs/" + id + "/verdict"));
      overview_ms.push_back(timed("/api/v1/summary"));
    }
    std::printf("20 more posts on GPU 0 at %ld runs of its history, p50 / max: post %.1f / %.1f ms, its detection"
                " %.2f / %.2f ms; then its verdict %.2f / %.2f ms, the overview %.2f / %.2f ms\n",
                runs_per_poster, pct(post_ms, 50), pct(post_ms, 100), pct(detect_ms, 50), pct(detect_ms, 100),
                pct(verdict_ms, 50), pct(verdict_ms, 100), pct(overview_ms, 50), pct(overview_ms, 100));
  }
  if (!postgres) {
    std::uintmax_t bytes = 0;
    for (const char* suffix : {"", "-wal"})
      if (std::filesystem::exists(o.db + suffix)) bytes += std::filesystem::file_size(o.db + suffix);
    std::printf("database: %.1f MB, %.1f bytes per stored repetition\n", static_cast<double>(bytes) / 1e6,
                static_cast<double>(bytes) / std::max(1.0, iter_results));
  }
  // The load is noise around fixed levels (A/A): any alert here would be a false alarm.
  auto alerts = c.Get("/api/v1/alerts?limit=1");
  std::printf("alerts raised on this A/A load: %lld\n",
              static_cast<long long>(json::parse(alerts->body)["total"].get<std::int64_t>()));
  for (auto& s : servers) s->stop();
  if (temp_db) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(o.db + suffix);
  }
  return failures.load() == 0 ? 0 : 1;
}
