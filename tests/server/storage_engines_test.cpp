// What only the choice of database engine brings: several server processes on one PostgreSQL database,
// and `migrate` from one database into another.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include <sqlite3.h>

#include "storage/copy_database.h"
#include "test_util.h"

using namespace swt;

namespace {

const std::vector<std::string> kBenches = {"lum/seq/1080p/cold", "lum/tiled/1080p/cold", "blur/sep/1080p/warm",
                                           "scan/dec/1m/cold", "lum/seq/8k/cold", "blur/sep/8k/warm"};
constexpr int kStepRun = 24, kRuns = 40;
// Benchmarks 0-2 become 10% slower at run kStepRun; 3-5 stay.
bool stepped(std::size_t bench) { return bench < 3; }

// Run i of one GPU: three repetitions per benchmark around its level, with a small deterministic jitter.
std::string run_body(int i) {
  std::vector<std::pair<std::string, std::vector<double>>> benches;
  for (std::size_t b = 0; b < kBenches.size(); ++b) {
    const double level = 1e5 * static_cast<double>(b + 1) * (stepped(b) && i >= kStepRun ? 1.10 : 1.0);
    const double jitter = 0.004 * static_cast<double>((i * 7 + static_cast<int>(b) * 3) % 5 - 2);
    benches.push_back({kBenches[b], {level * (1 + jitter), level * (1 + jitter + 0.001), level * (1 + jitter - 0.001)}});
  }
  return wrap_doc(make_doc({}, benches), cat("run-", std::to_string(i)), cat("c", std::to_string(i)), iso_at(i));
}

}  // namespace

// Two server processes' worth of Store and HTTP server on one database, four posters: each run is posted
// to both at once. Every acknowledged run is stored once, and each change raises one alert.
TEST(StorageEngines, TwoServersOnOnePostgresqlDatabase) {
  if (!on_postgres()) GTEST_SKIP() << "needs a PostgreSQL cluster: runs in server.postgres.*";
  TempDir dir;
  const std::string db = dir.db("shared.db");
  TestServer a(db), b(db);
  std::atomic<int> created{0}, already{0};
  std::mutex fail_mu;
  std::vector<std::string> failures;
  std::vector<std::thread> posters;
  for (int p = 0; p < 4; ++p) {
    posters.emplace_back([&, p] {
      const TestServer& to = p % 2 ? b : a;
      for (int i = p / 2; i < kRuns; i += 2) {  // posters 0 and 1 post the even runs, 2 and 3 the odd ones
        auto r = to.post(run_body(i));
        if (r && r->status == 201) ++created;
        else if (r && r->status == 200) ++already;
        else {
          std::lock_guard lk(fail_mu);
          failures.push_back(cat("run ", std::to_string(i), ": ", r ? cat(std::to_string(r->status), " ", r->body) : "no answer"));
        }
      }
    });
  }
  for (auto& t : posters) t.join();
  EXPECT_TRUE(failures.empty()) << failures.front();
  EXPECT_EQ(created.load(), kRuns) << "each run created once";
  EXPECT_EQ(already.load(), kRuns) << "and answered as already stored to the other poster";
  for (const TestServer* s : {&a, &b}) {
    const json runs = s->get("/api/v1/runs?limit=1000")["runs"];
    EXPECT_EQ(runs.size(), static_cast<std::size_t>(kRuns));
    std::set<std::string> ids;
    for (const auto& r : runs) ids.insert(r["id"].get<std::string>());
    EXPECT_EQ(ids.size(), static_cast<std::size_t>(kRuns)) << "no run twice";
  }
  // One regression per stepped benchmark, at the step, and nothing else: detection of a series ran on
  // one server at a time.
  const json alerts = a.get("/api/v1/alerts?limit=500")["alerts"];
  std::map<std::string, std::vector<json>> by_bench;
  for (const auto& al : alerts) by_bench[al["benchmark"].get<std::string>()].push_back(al);
  for (std::size_t bi = 0; bi < kBenches.size(); ++bi) {
    const auto& got = by_bench[kBenches[bi]];
    if (!stepped(bi)) {
      EXPECT_TRUE(got.empty()) << kBenches[bi] << ": " << json(got).dump(1);
      continue;
    }
    ASSERT_EQ(got.size(), 1u) << kBenches[bi] << ": " << json(got).dump(1);
    EXPECT_EQ(got[0]["kind"], "regression");
    EXPECT_EQ(got[0]["run_id"], cat("run-", std::to_string(kStepRun))) << got[0].dump(1);
  }
  EXPECT_EQ(b.get("/api/v1/alerts?limit=500")["alerts"], alerts) << "both servers tell the same";
}

// Each server process holds its GPUs' newest main points in memory for verdicts and detection's windows; the
// other process adds runs it never saw written. Posted to one server or the other by turns (two, then one), every
// run's verdict is the same asked of either right after its post, and the step raises its alerts as one server
// alone would: what each holds takes in the other's runs first.
TEST(StorageEngines, TwoServersJudgeEveryRunTheSameWhicheverStoredTheRunsBefore) {
  if (!on_postgres()) GTEST_SKIP() << "needs a PostgreSQL cluster: runs in server.postgres.*";
  TempDir dir;
  const std::string db = dir.db("shared.db");
  TestServer a(db), b(db);
  // A verdict's links name the server asked; the rest is compared.
  const auto judged = [](const TestServer& s, const std::string& path) {
    return std::regex_replace(s.get(path).dump(), std::regex(R"(127\.0\.0\.1:[0-9]+)"), "SERVER");
  };
  for (int i = 0; i < kRuns; ++i) {
    const TestServer& to = i % 3 == 2 ? b : a;
    const auto r = to.post(run_body(i));
    ASSERT_TRUE(r && r->status == 201) << "run " << i << ": " << (r ? r->body : "no answer");
    const std::string path = cat("/api/v1/runs/run-", std::to_string(i), "/verdict");
    const std::string from_a = judged(a, path);
    ASSERT_EQ(from_a, judged(b, path)) << "run " << i;
    const json v = json::parse(from_a);
    if (i == kStepRun) {
      EXPECT_EQ(v["suspects"].size() + v["slowdowns"].size(), 3u) << "the step is seen: " << from_a;
    }
    if (i == kStepRun - 1) {
      EXPECT_EQ(v["coverage"]["history_max"], kStepRun - 1) << "every run before it: " << from_a;
    }
  }
  // The same runs posted to one server alone, on a database of its own: the same alerts, numbers and all.
  TestServer alone(dir.db("alone.db"));
  for (int i = 0; i < kRuns; ++i) ASSERT_EQ(alone.post(run_body(i))->status, 201);
  const auto comparable = [](const TestServer& s) {
    json out = json::array();
    const json page = s.get("/api/v1/alerts?limit=500");
    for (json al : page["alerts"]) {
      for (const char* k : {"id", "created_at", "updated_at", "gpu"}) al.erase(k);
      out.push_back(al);
    }
    return out;
  };
  const json shared = comparable(a);
  EXPECT_EQ(shared.size(), 3u) << "one regression per stepped benchmark: " << shared.dump(1);
  EXPECT_EQ(shared, comparable(alone));
}

// migrate copies everything: the copy answers every query as the original did, its tokens still work,
// and new runs get new ids. Into PostgreSQL in server.postgres.*, else into a second SQLite file.
TEST(StorageEngines, MigrateCopiesEveryRunAlertAndToken) {
  TempDir dir;
  const std::string from = dir.file("from.db"), to = dir.db("to.db");
  std::string token;
  std::vector<std::string> paths = {"/api/v1/runs?limit=1000", "/api/v1/alerts?limit=500", "/api/v1/gpus",
                                    "/api/v1/benchmarks", "/api/v1/series?limit=1000", "/api/v1/summary",
                                    "/api/v1/correctness", "/api/v1/runs/run-30/verdict?dashboard=http%3A%2F%2Fdash.example", "/api/v1/runs/run-24", "/api/v1/runs/run-24/results",
                                    "/api/v1/compare?base=run-20&contender=run-30"};
  std::map<std::string, json> before;
  {
    TestServer s(from);
    token = s.token;
    s.store->tokens().create("alice", shaderwatch::TokenScope::Triage);
    for (int i = 0; i < kRuns; ++i) ASSERT_EQ(s.post(run_body(i))->status, 201);
    const json series = s.get("/api/v1/series?limit=1000")["series"];
    ASSERT_FALSE(series.empty());
    paths.push_back(cat("/api/v1/series/", std::to_string(series[0]["id"].get<std::int64_t>())));
    for (const auto& p : paths) before[p] = s.get(p);
    ASSERT_EQ(before["/api/v1/alerts?limit=500"]["alerts"].size(), 3u) << "the history has its alerts";
  }
  std::vector<std::string> progress;
  const auto copied = shaderwatch::copy_database(cat("sqlite:", from), to, [&](const std::string& l) { progress.push_back(l); });
  std::map<std::string, std::uint64_t> rows;
  for (const auto& t : copied) rows[t.table] = t.rows;
  EXPECT_EQ(rows["runs"], static_cast<std::uint64_t>(kRuns));
  EXPECT_EQ(rows["alerts"], 3u);
  EXPECT_EQ(rows["tokens"], 2u);
  EXPECT_FALSE(progress.empty());

  TestServer s(to, {}, false);
  std::map<std::string, shaderwatch::TokenScope> scopes;  // each token keeps its scope
  for (const auto& t : s.store->tokens().list()) scopes[t.name] = t.scope;
  ASSERT_EQ(scopes.size(), 2u);
  EXPECT_EQ(scopes["alice"], shaderwatch::TokenScope::Triage);
  scopes.erase("alice");
  EXPECT_EQ(scopes.begin()->second, shaderwatch::TokenScope::Admin) << "the test server's token";
  for (const auto& p : paths) EXPECT_EQ(s.get(p), before[p]) << p;
  auto again = s.post(run_body(5), token);  // the token came along; the run is known
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
  auto next = s.post(run_body(kRuns), token);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 201) << next->body;
  EXPECT_EQ(s.get("/api/v1/runs?limit=1000")["runs"].size(), static_cast<std::size_t>(kRuns + 1));

  // Into a database that already holds runs: refused by name, nothing written.
  try {
    shaderwatch::copy_database(cat("sqlite:", from), to, [](const std::string&) {});
    ADD_FAILURE() << "copied into a database holding runs";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("already holds"), std::string::npos) << e.what();
  }
}

namespace {

// What a copy of a history must answer as its original does.
const std::vector<std::string> kHistoryAnswers = {
    "/api/v1/runs?limit=1000", "/api/v1/alerts?limit=500", "/api/v1/series?limit=1000", "/api/v1/summary",
    "/api/v1/correctness", "/api/v1/runs/run-30/verdict?dashboard=http%3A%2F%2Fdash.example",
    "/api/v1/runs/run-24/results", "/api/v1/compare?base=run-20&contender=run-30"};

// A server on `db` given the kRuns runs of run_body: its answers to kHistoryAnswers.
std::map<std::string, json> answers_of_history(const std::string& db) {
  TestServer s(db);
  for (int i = 0; i < kRuns; ++i) EXPECT_EQ(s.post(run_body(i))->status, 201);
  std::map<std::string, json> out;
  for (const auto& p : kHistoryAnswers) out[p] = s.get(p);
  EXPECT_EQ(out["/api/v1/alerts?limit=500"]["alerts"].size(), 3u) << "the history has its alerts";
  return out;
}

}  // namespace

// And back: a copy from PostgreSQL into SQLite answers as the original did.
TEST(StorageEngines, MigrateCopiesPostgresqlIntoSqliteWithEveryAnswerTheSame) {
  if (!on_postgres()) GTEST_SKIP() << "needs a PostgreSQL cluster: runs in server.postgres.*";
  TempDir dir;
  const std::string from = dir.db("pg-from"), to = dir.file("to.db");
  const auto before = answers_of_history(from);
  std::map<std::string, std::uint64_t> rows;
  for (const auto& t : shaderwatch::copy_database(from, cat("sqlite:", to), [](const std::string&) {}))
    rows[t.table] = t.rows;
  EXPECT_GT(rows["points"], 0u);
  EXPECT_GE(rows["result_sets"], rows["points"]);
  TestServer s(to, {}, false);
  for (const auto& p : kHistoryAnswers) EXPECT_EQ(s.get(p), before.at(p)) << p;
}

// The README's PostgreSQL backup, run against the real server: pg_dump's custom format restored by pg_restore into
// an empty database gives a server that answers every query as the dumped one did.
TEST(StorageEngines, APgDumpRestoresToAServerThatAnswersTheSame) {
  if (!on_postgres()) GTEST_SKIP() << "needs a PostgreSQL cluster: runs in server.postgres.*";
  TempDir dir;
  const std::string from = dir.db("dumped"), to = dir.db("restored");
  const auto before = answers_of_history(from);
  std::vector<std::filesystem::path> bindirs;
  for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql")) bindirs.push_back(e.path() / "bin");
  ASSERT_FALSE(bindirs.empty()) << "no PostgreSQL client programs";
  std::sort(bindirs.begin(), bindirs.end());
  const std::string bin = bindirs.back().string(), dump = dir.file("shaderwatch.dump");
  ASSERT_EQ(std::system(cat(bin, "/pg_dump --format=custom --file=", dump, " '", from, "'").c_str()), 0);
  ASSERT_EQ(std::system(cat(bin, "/pg_restore --no-owner --exit-on-error --dbname='", to, "' ", dump).c_str()), 0);
  TestServer s(to, {}, false);
  for (const auto& p : kHistoryAnswers) EXPECT_TRUE(s.get(p) == before.at(p)) << p;
}

// PostgreSQL restarted under a running server (every connection of its database ended): a request that meets a
// broken connection has it made again and runs once more, so none fails (each reader's first one used to be a 500).
TEST(StorageEngines, AServerOutlivesItsPostgresqlConnections) {
  if (!on_postgres()) GTEST_SKIP() << "needs a PostgreSQL cluster: runs in server.postgres.*";
  TempDir dir;
  const std::string db = dir.db("restart.db");
  TestServer s(db);
  ASSERT_EQ(s.post(run_body(0))->status, 201);
  auto admin = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(postgres_uri("postgres")), shaderwatch::sql::Role::Writer);
  auto& kill = admin->q("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname=?");
  kill.bind(1, db.substr(db.rfind('/') + 1));
  ASSERT_TRUE(kill.step());
  EXPECT_EQ(kill.i64(0), 7) << "the writer, the detector, its reader and 4 readers";
  kill.reset();

  int failed_reads = 0;
  for (int i = 0; i < 12; ++i) {
    auto r = s.client()->Get("/api/v1/runs/run-0");
    ASSERT_TRUE(r);
    if (r->status != 200) ++failed_reads;
    EXPECT_EQ(r->status, 200) << r->body;
  }
  EXPECT_EQ(failed_reads, 0);
  // Run 1 fails one benchmark: its correctness alert is raised though detection meets a broken connection.
  json failing = json::parse(run_body(1));
  for (auto& row : failing["benchmark"]["benchmarks"])
    if (row["name"] == kBenches[0] && row["run_type"] == "iteration") {
      row["error_occurred"] = true;
      row["error_message"] = "FAIL: sum off by 3 ulp beyond its bound";
    }
  int attempts = 0, status = 0;
  while (status != 201 && attempts < 3) {
    ++attempts;
    status = s.post(failing.dump())->status;
  }
  EXPECT_EQ(status, 201);
  EXPECT_EQ(attempts, 1) << "the writer's broken connection is made again under the request";
  EXPECT_EQ(s.post(run_body(2))->status, 201);
  EXPECT_EQ(s.get("/api/v1/runs?limit=10")["runs"].size(), 3u) << "nothing lost";
  const json alerts = s.get("/api/v1/alerts")["alerts"];
  ASSERT_EQ(alerts.size(), 1u) << alerts.dump(1);
  EXPECT_EQ(alerts[0]["kind"], "correctness_regression");
  EXPECT_EQ(alerts[0]["run_id"], "run-1");
  EXPECT_EQ(s.get("/api/v1/runs/run-0/verdict")["run_id"], "run-0");
}

// The server keeps SQLite from counting its allocations (a global mutex on each, for statistics nobody reads): it
// cost 1.4 ms of the 31 ms of CPU per post (server/README.md, "CPU per post").
TEST(StorageEngines, SqliteCountsNoAllocations) {
  TempDir dir;
  TestServer s(dir.file("count.db"));
  ASSERT_EQ(s.post(run_body(0))->status, 201);
  EXPECT_EQ(sqlite3_memory_used(), 0) << "SQLite's memory statistics are on";
}

// On PostgreSQL the rows of each benchmark-run (points, result_sets) keep their ids and counts in 4 bytes, not the
// 8 of every other INTEGER there (migration 11), a point is keyed by its run and found by a two-word series index
// (migration 12), and a database of schema 10 is brought to them with every answer the same.
TEST(StorageEngines, OnPostgresqlEachBenchmarkRunsRowsTakeFourByteIntegersAndItsPointTwoWordKeys) {
  if (!on_postgres()) GTEST_SKIP() << "needs a PostgreSQL cluster: runs in server.postgres.*";
  TempDir dir;
  const std::string db = dir.db("narrow.db");
  const auto types = [&] {
    auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Reader);
    std::map<std::string, std::string> out;
    auto& st = c->q("SELECT table_name || '.' || column_name, data_type FROM information_schema.columns"
                    " WHERE table_name IN ('points', 'result_sets')");
    while (st.step()) out[st.text(0)] = st.text(1);
    st.reset();
    // The points' indexes: their names and definitions.
    auto& ix = c->q("SELECT indexname, indexdef FROM pg_indexes WHERE tablename='points'");
    while (ix.step()) out["index " + ix.text(0)] = ix.text(1);
    ix.reset();
    return out;
  };
  std::map<std::string, json> before;
  const std::vector<std::string> paths = {"/api/v1/runs/run-29", "/api/v1/runs/run-29/results?limit=1000",
                                          "/api/v1/runs/run-29/verdict?dashboard=http%3A%2F%2Fdash.example",
                                          "/api/v1/alerts?limit=100", "/api/v1/series?limit=100"};
  {
    TestServer s(db);
    for (int i = 0; i < 30; ++i) ASSERT_EQ(s.post(run_body(i))->status, 201);
    for (const auto& p : paths) before[p] = s.get(p);
  }
  auto narrow = types();
  for (const char* column : {"points.series_id", "points.run_id", "points.n_reps", "result_sets.run_id",
                             "result_sets.benchmark_id", "result_sets.shape_id"})
    EXPECT_EQ(narrow[column], "integer") << column;
  EXPECT_EQ(narrow["points.on_main"], "smallint");
  EXPECT_EQ(narrow["points.started_ms"], "bigint") << "Unix ms need 8 bytes";
  // A run's points by their key; a series' points by (series, time): two 8-byte words an entry.
  EXPECT_EQ(narrow["index points_pkey"],
            "CREATE UNIQUE INDEX points_pkey ON public.points USING btree (run_id, series_id)");
  EXPECT_EQ(narrow["index points_series"],
            "CREATE INDEX points_series ON public.points USING btree (series_id, started_ms)");
  EXPECT_EQ(narrow.count("index points_run"), 0u);
  {
    auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
    set_back_to_schema(*c, 10);
  }
  const auto old = types();
  EXPECT_EQ(old.at("points.run_id"), "bigint") << "set back to schema 10";
  EXPECT_EQ(old.count("index points_run"), 1u) << "set back to schema 10";
  TestServer s(db, {}, false);
  EXPECT_EQ(types(), narrow);
  for (const auto& p : paths) EXPECT_TRUE(s.get(p) == before[p]) << p;
}
