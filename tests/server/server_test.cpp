// The server end to end: a real server on 127.0.0.1, a real SQLite file, real benchmark output.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>


#include <shaderwatch/result_contract.h>

#include "test_util.h"

using namespace swt;

namespace {

json error_of(const httplib::Result& r) {
  EXPECT_TRUE(r);
  if (!r) return nullptr;
  auto j = json::parse(r->body, nullptr, false);
  EXPECT_TRUE(j.is_object() && j.contains("error")) << r->body;
  return j.is_object() && j.contains("error") ? j["error"] : json(nullptr);
}

std::int64_t count_runs(const TestServer& s) { return static_cast<std::int64_t>(s.get("/api/v1/runs?limit=1000")["runs"].size()); }

}  // namespace

TEST(ServerIngest, RoundTripOfRealBenchmarkOutput) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const std::string doc = run_sample_bench();
  const json d = json::parse(doc);
  auto r = s.post(wrap(doc, "run-1", "c1"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const json body = json::parse(r->body);
  EXPECT_EQ(body["run"]["id"], "run-1");
  EXPECT_EQ(body["run"]["results"], d["benchmarks"].size());
  EXPECT_EQ(body["run"]["benchmarks"], 3);
  EXPECT_EQ(body["run"]["gpu"]["name"], "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(body["run"]["gpu"]["vendor_id"], "0x10de");
  EXPECT_EQ(body["run"]["driver"]["version"], "580.159.0.0");
  EXPECT_EQ(body["run"]["api_version"], "1.4.312");
  EXPECT_EQ(body["run"]["harness_revision"], "deadbeef");
  EXPECT_EQ(body["run"]["subgroup_size"], "unknown");  // not written by the sample: unknown

  // The stored point is the median of the three repetitions of real_time.
  std::vector<double> reps;
  for (const auto& b : d["benchmarks"])
    if (b["run_name"] == "lum/sequential_256/4096/cold" && b["run_type"] == "iteration")
      reps.push_back(b["real_time"].get<double>());
  ASSERT_EQ(reps.size(), 3u);
  std::sort(reps.begin(), reps.end());
  auto sl = s.get("/api/v1/series?benchmark=lum/sequential_256/4096/cold");
  ASSERT_EQ(sl["series"].size(), 1u);
  auto series = s.get("/api/v1/series/" + std::to_string(sl["series"][0]["id"].get<int>()));
  ASSERT_EQ(series["points"].size(), 1u);
  EXPECT_DOUBLE_EQ(series["points"][0]["value_ns"].get<double>(), reps[1]);
  EXPECT_EQ(series["points"][0]["repetitions"], 3);
  EXPECT_EQ(series["family"], "lum");
  EXPECT_EQ(series["variant"], "sequential_256");
  EXPECT_EQ(series["config"], "4096/cold");

  auto run = s.get("/api/v1/runs/run-1");
  EXPECT_EQ(run["points"].size(), 3u);
  // Every raw row comes back, in order, with times in ns and counters kept.
  auto raw = s.get("/api/v1/runs/run-1/results");
  ASSERT_EQ(raw["results"].size(), d["benchmarks"].size());
  for (std::size_t i = 0; i < d["benchmarks"].size(); ++i) {
    const auto& in = d["benchmarks"][i];
    const auto& out = raw["results"][i];
    EXPECT_EQ(out["run_type"], in["run_type"]);
    EXPECT_EQ(out["iterations"], in["iterations"]);
    if (in["run_type"] == "iteration") {
      EXPECT_EQ(out["repetition_index"], in["repetition_index"]);
      EXPECT_DOUBLE_EQ(out["real_ns"].get<double>(), in["real_time"].get<double>());  // already ns
      EXPECT_TRUE(out["counters"].contains("bytes_per_second"));
    } else {
      EXPECT_EQ(out["aggregate_name"], in["aggregate_name"]);
    }
  }
  EXPECT_EQ(s.get("/api/v1/runs/run-1/results?run_type=iteration&benchmark=lum/sequential_256/4096/cold")["results"].size(), 3u);
  s.get("/api/v1/runs/run-1/results?run_type=bogus", 400);
  EXPECT_EQ(s.get("/api/v1/runs/run-1/verdict")["verdict"], "pass");
  EXPECT_EQ(s.get("/api/v1/benchmarks?family=lum")["benchmarks"].size(), 2u);
  EXPECT_EQ(s.get("/api/v1/drivers")["drivers"][0]["driver_version"], "580.159.0.0");
  s.get("/api/v1/runs/nope", 404);
}

TEST(ServerIngest, PlainGoogleBenchmarkOutputIsAcceptedAsUnknownDevice) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  auto r = s.post(wrap(run_sample_bench("SW_SAMPLE_PLAIN=1"), "plain-1", "c1"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const json body = json::parse(r->body);
  EXPECT_EQ(body["run"]["gpu"]["name"], "unknown");
  EXPECT_EQ(body["run"]["gpu"]["vendor_id"], "unknown");
  EXPECT_EQ(body["run"]["driver"]["version"], "unknown");
}

TEST(ServerIngest, ErrorsAreCorrectnessFailuresAndRegressions) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  ASSERT_EQ(s.post(wrap(run_sample_bench(), "ok-1", "c1", "2026-01-01T00:00:00Z"))->status, 201);
  auto r = s.post(wrap(run_sample_bench("SW_SAMPLE_FAIL=1"), "bad-1", "c2", "2026-01-01T01:00:00Z"));
  ASSERT_EQ(r->status, 201) << r->body;
  const json body = json::parse(r->body);
  ASSERT_EQ(body["alerts"].size(), 1u) << body.dump(1);
  EXPECT_EQ(body["alerts"][0]["kind"], "correctness_regression");
  EXPECT_EQ(body["alerts"][0]["benchmark"], "lum/tiled_16/4096/cold");
  EXPECT_EQ(body["alerts"][0]["kernel"], "lum/tiled_16");
  EXPECT_EQ(body["alerts"][0]["config"], "4096/cold");
  EXPECT_EQ(body["alerts"][0]["attribution"]["cause"], "commit");
  auto v = s.get("/api/v1/runs/bad-1/verdict");
  EXPECT_EQ(v["verdict"], "fail");
  ASSERT_EQ(v["correctness"].size(), 1u);
  EXPECT_EQ(v["correctness"][0]["kind"], "correctness_regression");
  EXPECT_NE(v["correctness"][0]["error_message"].get<std::string>().find("mismatch"), std::string::npos);
  // Still failing on the next run: no second alert, but the verdict still fails.
  r = s.post(wrap(run_sample_bench("SW_SAMPLE_FAIL=1"), "bad-2", "c3", "2026-01-01T02:00:00Z"));
  EXPECT_EQ(json::parse(r->body)["alerts"].size(), 0u);
  EXPECT_EQ(s.get("/api/v1/runs/bad-2/verdict")["verdict"], "fail");
  const json alerts = s.get("/api/v1/alerts?kind=correctness_regression");
  EXPECT_EQ(alerts["total"], 1);
  // The alert carries the wrong answer's own message (the dashboard's card shows it).
  ASSERT_TRUE(alerts["alerts"][0]["error_message"].is_string()) << alerts.dump(1);
  EXPECT_NE(alerts["alerts"][0]["error_message"].get<std::string>().find("mismatch"), std::string::npos);
}

TEST(ServerIngest, TheNegativeControlsExpectedFailureIsNoCorrectnessFailure) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  ASSERT_EQ(s.post(wrap(run_sample_bench("SW_SAMPLE_NEGATIVE=1"), "nc-1", "c1", "2026-01-01T00:00:00Z"))->status, 201);
  auto r = s.post(wrap(run_sample_bench("SW_SAMPLE_NEGATIVE=1"), "nc-2", "c2", "2026-01-01T01:00:00Z"));
  ASSERT_EQ(r->status, 201) << r->body;
  EXPECT_EQ(json::parse(r->body)["alerts"].size(), 0u) << r->body;
  const auto v = s.get("/api/v1/runs/nc-2/verdict");
  EXPECT_EQ(v["verdict"], "pass") << v.dump(1);
  EXPECT_EQ(v["correctness"].size(), 0u);
  // The raw row is kept, with its message.
  const auto rows = s.get("/api/v1/runs/nc-2/results");
  bool seen = false;
  for (const auto& row : rows["results"]) {
    if (row.value("error_occurred", false)) {
      seen = true;
      EXPECT_EQ(row["error_message"].get<std::string>().rfind("EXPECTED (negative control): ", 0), 0u);
    }
  }
  EXPECT_TRUE(seen) << rows.dump(1);
}

TEST(ServerIngest, AKernelTheDeviceCannotRunIsSkippedNotFailed) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  ASSERT_EQ(s.post(wrap(run_sample_bench("SW_SAMPLE_UNSUPPORTED=1"), "un-1", "c1", "2026-01-01T00:00:00Z"))->status, 201);
  auto r = s.post(wrap(run_sample_bench("SW_SAMPLE_UNSUPPORTED=1"), "un-2", "c2", "2026-01-01T01:00:00Z"));
  ASSERT_EQ(r->status, 201) << r->body;
  EXPECT_EQ(json::parse(r->body)["alerts"].size(), 0u) << r->body;
  const auto v = s.get("/api/v1/runs/un-2/verdict");
  EXPECT_EQ(v["verdict"], "pass") << v.dump(1);
  EXPECT_EQ(v["correctness"].size(), 0u);
  ASSERT_EQ(v["skipped"].size(), 1u) << v.dump(1);
  EXPECT_EQ(v["skipped"][0]["benchmark"], "lum/subgroup_add_256/4096/cold");
  EXPECT_NE(v["skipped"][0]["reason"].get<std::string>().find("subgroup"), std::string::npos);
  // Not a point of a series either.
  const json all = s.get("/api/v1/series");  // kept: a loop over a temporary's member would dangle
  ASSERT_FALSE(all["series"].empty());
  for (const auto& series : all["series"]) EXPECT_NE(series["benchmark"], "lum/subgroup_add_256/4096/cold");
}

TEST(ServerIngest, IdempotentRepostAndConflict) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const std::string doc = run_sample_bench();
  const std::string body = wrap(doc, "idem-1", "c1");
  auto first = s.post(body);
  ASSERT_EQ(first->status, 201);
  auto again = s.post(body);
  ASSERT_EQ(again->status, 200) << again->body;
  EXPECT_EQ(json::parse(again->body)["run"], json::parse(first->body)["run"]);
  // Same content, other formatting: still the same run.
  auto pretty = s.post(json::parse(body).dump(2));
  EXPECT_EQ(pretty->status, 200);
  // Same id, other content: 409 naming the id.
  auto other = s.post(wrap(doc, "idem-1", "c2"));
  EXPECT_EQ(other->status, 409);
  EXPECT_EQ(error_of(other)["field"], "run.id");
  EXPECT_EQ(count_runs(s), 1);
}

TEST(ServerAuth, PostNeedsAValidUnrevokedToken) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const std::string doc = run_sample_bench();
  auto none = s.post(wrap(doc, "a1", "c1"), "");
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(error_of(none)["field"], "Authorization");
  EXPECT_EQ(s.post(wrap(doc, "a1", "c1"), "swt_wrong")->status, 401);
  {
    auto c = s.client();
    auto basic = c->Post("/api/v1/runs", {{"Authorization", "Basic Zm9vOmJhcg=="}}, wrap(doc, "a1", "c1"),
                         "application/json");
    EXPECT_EQ(basic->status, 401);
  }
  // Authorisation comes before the body is read: no token and a huge body is a 401, not a 413.
  {
    // Raw socket: announce 80 MiB and send none of it; the answer must come anyway.
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(s.port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const std::string req = "POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 83886080\r\n\r\n";
    ASSERT_EQ(write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
    char buf[512] = {};
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    ASSERT_GT(n, 0);
    EXPECT_EQ(std::string(buf).rfind("HTTP/1.1 401", 0), 0u) << buf;
  }
  const std::string t = s.store->tokens().create("revokee", shaderwatch::TokenScope::Upload);
  auto created = s.post(wrap(doc, "a2", "c1"), t);
  EXPECT_EQ(created->status, 201);
  EXPECT_EQ(json::parse(created->body)["run"]["posted_by"], "revokee");
  ASSERT_TRUE(s.store->tokens().revoke("revokee"));
  EXPECT_EQ(s.post(wrap(doc, "a3", "c1"), t)->status, 401);
  EXPECT_FALSE(s.store->tokens().revoke("revokee")) << "already revoked";
  EXPECT_EQ(count_runs(s), 1);
  // Token names are unique and the plaintext is not stored.
  EXPECT_THROW(s.store->tokens().create("revokee", shaderwatch::TokenScope::Upload), shaderwatch::ClientError);
  auto tokens = s.store->tokens().list();
  ASSERT_EQ(tokens.size(), 2u);
  // Reads are open by default; alert triage needs a token.
  auto c = s.client();
  EXPECT_EQ(c->Patch("/api/v1/alerts/1", R"({"state":"acknowledged"})", "application/json")->status, 401);
}

TEST(ServerAuth, ReadTokenRequiredClosesReads) {
  TempDir dir;
  shaderwatch::ServerOptions o;
  o.read_token_required = true;
  TestServer s(dir.db("sw.db"), o);
  auto c = s.client();
  EXPECT_EQ(c->Get("/api/v1/gpus")->status, 401);
  c->set_bearer_token_auth(s.token);
  EXPECT_EQ(c->Get("/api/v1/gpus")->status, 200);
}

TEST(ServerIngest, EveryBadInputClassIsA4xxNamingWhatIsWrong) {
  TempDir dir;
  shaderwatch::ServerOptions o;
  o.max_body_bytes = 256 * 1024;
  TestServer s(dir.db("sw.db"), o);
  const json good = json::parse(wrap(run_sample_bench(), "bad-input", "c1"));
  struct Case {
    std::string name, body, field;
    int status = 400;
  };
  auto with = [&](auto f) {
    json j = good;
    f(j);
    return j.dump();
  };
  std::string deep(200, '[');
  deep += std::string(200, ']');
  std::vector<Case> cases = {
      {"not JSON", "this is not json", ""},
      {"truncated JSON", good.dump().substr(0, 100), ""},
      {"empty body", "", ""},
      {"array body", "[1,2,3]", "$"},
      {"missing run", with([](json& j) { j.erase("run"); }), "run"},
      {"missing benchmark", with([](json& j) { j.erase("benchmark"); }), "benchmark"},
      {"unknown top-level key", with([](json& j) { j["extra"] = 1; }), "extra"},
      {"run id wrong type", with([](json& j) { j["run"]["id"] = 42; }), "run.id"},
      {"run id bad chars", with([](json& j) { j["run"]["id"] = "a b/c"; }), "run.id"},
      {"missing commit", with([](json& j) { j["run"].erase("commit"); }), "run.commit"},
      {"bad started_at", with([](json& j) { j["run"]["started_at"] = "yesterday"; }), "run.started_at"},
      {"benchmarks not array", with([](json& j) { j["benchmark"]["benchmarks"] = "x"; }), "benchmark.benchmarks"},
      {"missing benchmarks", with([](json& j) { j["benchmark"].erase("benchmarks"); }), "benchmark.benchmarks"},
      {"real_time string", with([](json& j) { j["benchmark"]["benchmarks"][1]["real_time"] = "fast"; }),
       "benchmark.benchmarks[1].real_time"},
      {"missing real_time", with([](json& j) { j["benchmark"]["benchmarks"][2].erase("real_time"); }),
       "benchmark.benchmarks[2].real_time"},
      {"missing name", with([](json& j) { j["benchmark"]["benchmarks"][0].erase("name"); }),
       "benchmark.benchmarks[0].name"},
      {"iterations float", with([](json& j) { j["benchmark"]["benchmarks"][0]["iterations"] = 1.5; }),
       "benchmark.benchmarks[0].iterations"},
      {"iterations negative", with([](json& j) { j["benchmark"]["benchmarks"][0]["iterations"] = -1; }),
       "benchmark.benchmarks[0].iterations"},
      {"huge real_time", with([](json& j) { j["benchmark"]["benchmarks"][0]["real_time"] = 1e300; }),
       "benchmark.benchmarks[0].real_time"},
      {"negative real_time", with([](json& j) { j["benchmark"]["benchmarks"][0]["real_time"] = -3.0; }),
       "benchmark.benchmarks[0].real_time"},
      {"huge integer iterations",
       [&] {
         std::string b = good.dump();
         const std::string key = "\"iterations\":";
         const auto pos = b.find(key);
         const auto end = b.find_first_of(",}", pos);
         return b.substr(0, pos + key.size()) + "123456789012345678901234567890" + b.substr(end);
       }(),
       "benchmark.benchmarks[0].iterations"},
      {"number overflowing double", R"({"run":{"id":"x","commit":"c","started_at":"2026-01-01T00:00:00Z"},"benchmark":{"benchmarks":[{"name":"a","iterations":1,"real_time":1e999,"cpu_time":1}]}})", ""},
      {"bad time_unit", with([](json& j) { j["benchmark"]["benchmarks"][0]["time_unit"] = "fortnights"; }),
       "benchmark.benchmarks[0].time_unit"},
      {"bad run_type", with([](json& j) { j["benchmark"]["benchmarks"][0]["run_type"] = "vibes"; }),
       "benchmark.benchmarks[0].run_type"},
      {"error_occurred not bool", with([](json& j) { j["benchmark"]["benchmarks"][0]["error_occurred"] = "yes"; }),
       "benchmark.benchmarks[0].error_occurred"},
      {"context not object", with([](json& j) { j["benchmark"]["context"] = 5; }), "benchmark.context"},
      {"context key not string", with([](json& j) { j["benchmark"]["context"]["sw_driver_version"] = 580; }),
       "benchmark.context.sw_driver_version"},
      {"deep nesting", R"({"run":{"id":"x","commit":"c"},"benchmark":)" + deep + "}", ""},
      {"oversized body", std::string(300 * 1024, ' ') + good.dump(), "", 413},
  };
  for (const auto& c : cases) {
    auto r = s.post(c.body);
    ASSERT_TRUE(r) << c.name;
    EXPECT_EQ(r->status, c.status) << c.name << ": " << r->body;
    const json e = error_of(r);
    EXPECT_TRUE(e.is_object() && e.contains("message")) << c.name;
    if (!c.field.empty() && e.is_object()) {
      EXPECT_EQ(e.value("field", ""), c.field) << c.name << ": " << r->body;
    }
  }
  EXPECT_EQ(count_runs(s), 0) << "nothing half-stored";
  EXPECT_EQ(s.get("/api/v1/benchmarks")["benchmarks"].size(), 0u);
  // And the good body still goes in afterwards.
  EXPECT_EQ(s.post(good.dump())->status, 201);
  // Bad query parameters are 400s too.
  s.get("/api/v1/alerts?limit=-1", 400);
  s.get("/api/v1/alerts?state=bogus", 400);
  s.get("/api/v1/runs?colour=red", 400);
  s.get("/api/v1/series/99999", 404);
  s.get("/api/v1/nothing-here", 404);
}

TEST(ServerIngest, ConcurrentPostersAllLand) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  std::mt19937_64 rng(9);
  std::vector<std::pair<std::string, std::vector<double>>> benches;
  for (int b = 0; b < 100; ++b) benches.push_back({"fam/var" + std::to_string(b % 4) + "/" + std::to_string(b) + "/cold", {1000.0 + b, 1001.0 + b, 999.0 + b}});
  const int threads = 4, per_thread = 8;
  std::atomic<int> created{0}, other{0};
  std::mutex why_mu;
  std::string why;  // what the posts that did not land were answered
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      Gpu g;
      g.name = cat("GPU ", std::to_string(t % 2));
      for (int i = 0; i < per_thread; ++i) {
        const std::string id = cat("conc-", std::to_string(t), "-", std::to_string(i));
        auto r = s.post(wrap_doc(make_doc(g, benches), id, cat("c", std::to_string(i)), iso_at(t * 100 + i)));
        if (r && r->status == 201) {
          ++created;
          continue;
        }
        ++other;
        std::lock_guard lk(why_mu);
        why += cat(id, ": ", r ? cat(std::to_string(r->status), " ", r->body) : httplib::to_string(r.error()), "\n");
      }
    });
  // Meanwhile, the same run id from several threads at once: exactly one creates it.
  std::atomic<int> dup_created{0}, dup_ok{0};
  const std::string dup = wrap_doc(make_doc(Gpu{}, benches), "dup", "c0", iso_at(999));
  std::vector<std::thread> ds;
  for (int t = 0; t < 4; ++t)
    ds.emplace_back([&] {
      auto r = s.post(dup);
      if (r && r->status == 201) dup_created++;
      else if (r && r->status == 200) dup_ok++;
    });
  for (auto& t : ts) t.join();
  for (auto& t : ds) t.join();
  EXPECT_EQ(created, threads * per_thread);
  EXPECT_EQ(other, 0) << why;
  EXPECT_EQ(dup_created, 1);
  EXPECT_EQ(dup_ok, 3);
  EXPECT_EQ(count_runs(s), threads * per_thread + 1);
  EXPECT_EQ(s.store->stats().results, static_cast<std::uint64_t>((threads * per_thread + 1) * 100 * 6));
}

TEST(ServerIngest, RestartWithTheSameFileKeepsEverything) {
  TempDir dir;
  const std::string db = dir.db("sw.db");
  const std::string doc = run_sample_bench();
  std::string token;
  json stored;
  {
    TestServer s(db);
    token = s.token;
    auto r = s.post(wrap(doc, "persist-1", "c1"));
    ASSERT_EQ(r->status, 201);
    stored = json::parse(r->body)["run"];
  }
  TestServer s(db, {}, false);
  EXPECT_EQ(s.store->schema_version(), shaderwatch::Store::kSchemaVersion);
  EXPECT_EQ(s.get("/api/v1/runs/persist-1")["run"], stored);
  auto again = s.post(wrap(doc, "persist-1", "c1"), token);  // the token survived too
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
  EXPECT_EQ(s.post(wrap(doc, "persist-2", "c2", "2026-01-02T00:00:00Z"), token)->status, 201);
  EXPECT_EQ(count_runs(s), 2);
}

TEST(ServerQueries, CompareTwoRuns) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  std::vector<std::pair<std::string, std::vector<double>>> a, b;
  for (int i = 0; i < 9; ++i) {
    a.push_back({}), b.push_back({});
  }
  // Microseconds, written in ns: well above compare's 500 ns floor.
  a = {{"k/x/1/cold", {100, 101, 99, 100, 102, 98, 100, 101, 99}}, {"k/y/1/cold", {50, 51, 49, 50, 52, 48, 50, 51, 49}},
       {"k/only_a/1/cold", {1, 1, 1}}};
  b = {{"k/x/1/cold", {110, 111, 109, 110, 112, 108, 110, 111, 109}}, {"k/y/1/cold", {50, 49, 51, 50, 48, 52, 50, 49, 51}}};
  for (auto* runs : {&a, &b})
    for (auto& [name, reps] : *runs)
      for (double& r : reps) r *= 1000;
  ASSERT_EQ(s.post(wrap_doc(make_doc(Gpu{}, a), "base", "c1", iso_at(0)))->status, 201);
  ASSERT_EQ(s.post(wrap_doc(make_doc(Gpu{}, b), "cont", "c2", iso_at(1)))->status, 201);
  auto cmp = s.get("/api/v1/compare?base=base&contender=cont");
  ASSERT_EQ(cmp["benchmarks"].size(), 2u);
  for (const auto& row : cmp["benchmarks"]) {
    if (row["benchmark"] == "k/x/1/cold") {
      EXPECT_NEAR(row["delta_pct"].get<double>(), 10.0, 1e-9);
      EXPECT_LT(row["p_value"].get<double>(), 0.001);
      EXPECT_EQ(row["verdict"], "slower");
      EXPECT_EQ(row["reliable"], true);
    } else {
      EXPECT_NEAR(row["delta_pct"].get<double>(), 0.0, 1e-9);
      EXPECT_EQ(row["verdict"], "same");
    }
  }
  EXPECT_EQ(cmp["only_in_base"], json::array({"k/only_a/1/cold"}));
  s.get("/api/v1/compare?base=base", 400);
  s.get("/api/v1/compare?base=base&contender=missing", 404);
  s.get("/api/v1/compare?base=base&contender=cont&min_delta_pct=-1", 400);
  // Above the floor the 10% change stays "slower"; with the floor above it, it is "same".
  auto strict = s.get("/api/v1/compare?base=base&contender=cont&min_delta_pct=20");
  for (const auto& row : strict["benchmarks"]) EXPECT_EQ(row["verdict"], "same") << row;
}

TEST(ServerQueries, CompareIgnoresSignificantButTinyDifferences) {
  // Repetitions of one process share its conditions: 0.2% apart with no overlap is p < 0.001 by the U
  // test, and below the 1% floor a difference between two processes is no verdict.
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  std::vector<double> base, cont;
  for (int i = 0; i < 10; ++i) base.push_back(100000 + 10 * i), cont.push_back(100200 + 10 * i);
  ASSERT_EQ(s.post(wrap_doc(make_doc(Gpu{}, {{"k/x/1/cold", base}}), "base", "c1", iso_at(0)))->status, 201);
  ASSERT_EQ(s.post(wrap_doc(make_doc(Gpu{}, {{"k/x/1/cold", cont}}), "cont", "c2", iso_at(1)))->status, 201);
  auto cmp = s.get("/api/v1/compare?base=base&contender=cont");
  ASSERT_EQ(cmp["benchmarks"].size(), 1u);
  EXPECT_LT(cmp["benchmarks"][0]["p_value"].get<double>(), 0.001);
  EXPECT_EQ(cmp["benchmarks"][0]["verdict"], "same");
  EXPECT_EQ(cmp["min_delta_pct"], 1.0);
  // 0.2% of 100 us is 200 ns: with the 1% floor lowered, the 500 ns one still holds it back.
  EXPECT_EQ(s.get("/api/v1/compare?base=base&contender=cont&min_delta_pct=0.1")["benchmarks"][0]["verdict"], "same");
  EXPECT_EQ(s.get("/api/v1/compare?base=base&contender=cont&min_delta_pct=0.1&min_delta_ns=0")["benchmarks"][0]["verdict"],
            "slower");
}

TEST(ServerQueries, CompareFloorsFollowTheBenchmarksOwnNoise) {
  // Each row: 10 repetitions around `ns`, and, where `spread` > 0, shaderwatch-bench's quartile
  // counters saying its samples spread that much (p25-p75, relative).
  auto doc = [](double scale) {
    json rows = json::array();
    const std::vector<std::tuple<std::string, double, double>> benches = {
        {"k/short/1/hot", 20000, 0},     // 2% is 400 ns: under the 500 ns floor
        {"k/noisy/1/hot", 100000, 0.03},  // 2% inside its 3% spread
        {"k/quiet/1/hot", 100000, 0.002},  // 2% well outside its 0.2% spread
        {"k/plain/1/hot", 100000, 0}};     // no counters: only the 1% and 500 ns floors
    int family = 0;
    for (const auto& [name, ns, spread] : benches) {
      for (int i = 0; i < 10; ++i) {
        json row = {{"name", name}, {"family_index", family}, {"per_family_instance_index", 0}, {"run_name", name},
                    {"run_type", "iteration"}, {"repetitions", 10}, {"repetition_index", i}, {"threads", 1},
                    {"iterations", 1}, {"real_time", ns * scale * (1 + 0.0001 * i)}, {"cpu_time", 1.0},
                    {"time_unit", "ns"}};
        if (spread > 0) {
          const double us = ns * scale / 1000;
          row[shaderwatch::contract::kMedianCounter] = us;
          row[shaderwatch::contract::kP25Counter] = us * (1 - spread / 2);
          row[shaderwatch::contract::kP75Counter] = us * (1 + spread / 2);
        }
        rows.push_back(row);
      }
      ++family;
    }
    return json{{"context", {{"date", "2026-01-01T00:00:00+00:00"}, {"host_name", "runner"},
                             {"sw_device_name", "GPU"}, {"sw_vendor_id", "0x10de"}, {"sw_device_id", "0x2335"},
                             {"sw_driver_name", "NVIDIA"}, {"sw_driver_version", "1"}}},
                {"benchmarks", rows}};
  };
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  ASSERT_EQ(s.post(wrap_doc(doc(1.0), "base", "c1", iso_at(0)))->status, 201);
  ASSERT_EQ(s.post(wrap_doc(doc(1.02), "cont", "c2", iso_at(1)))->status, 201);
  auto verdicts = [&](const std::string& extra) {
    std::map<std::string, std::string> v;
    const json cmp = s.get("/api/v1/compare?base=base&contender=cont" + extra);
    EXPECT_EQ(cmp["benchmarks"].size(), 4u) << cmp;
    for (const auto& row : cmp["benchmarks"]) {
      EXPECT_LT(row["p_value"].get<double>(), 0.001) << row;
      v[row["benchmark"]] = row["verdict"];
    }
    return v;
  };
  const auto by_default = verdicts("");
  EXPECT_EQ(by_default.at("k/short/1/hot"), "same");
  EXPECT_EQ(by_default.at("k/noisy/1/hot"), "same");
  EXPECT_EQ(by_default.at("k/quiet/1/hot"), "slower");
  EXPECT_EQ(by_default.at("k/plain/1/hot"), "slower");
  const auto no_floors = verdicts("&min_delta_ns=0&noise_floor=0");
  for (const auto& [name, verdict] : no_floors) EXPECT_EQ(verdict, "slower") << name;
  const auto row = s.get("/api/v1/compare?base=base&contender=cont")["benchmarks"];
  for (const auto& r : row)
    if (r["benchmark"] == "k/noisy/1/hot") {
      EXPECT_NEAR(r["spread_pct"].get<double>(), 3.0, 1e-6);
      EXPECT_NEAR(r["floor_pct"].get<double>(), 3.0, 1e-6);
    }
  s.get("/api/v1/compare?base=base&contender=cont&noise_floor=yes", 400);
  s.get("/api/v1/compare?base=base&contender=cont&min_delta_ns=-5", 400);
}

TEST(ServerQueries, RankingFlipsBetweenGpus) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  Gpu older{"Old GPU", "0x10de", "0x1b80", "1"}, newer{"New GPU", "0x10de", "0x2684", "1"};
  // On the older GPU the tiled variant wins; on the newer one the sequential one does (both sum luminance).
  // subgroup_add and grid_stride swap places too, but within 0.5%: noise, no flip and no fastest GPU.
  // log_average_exposure swaps places with sequential as well, but computes another operation: no flip.
  const std::string seq = "lum/sequential_256/1080p/cold", tiled = "lum/prefetch4_64/1080p/cold",
                    close_a = "lum/subgroup_add_256/1080p/cold", close_b = "lum/grid_stride_vec4/1080p/cold",
                    other_operation = "lum/log_average_exposure/1080p/cold";
  ASSERT_EQ(s.post(wrap_doc(make_doc(older, {{seq, {200, 200, 200}}, {tiled, {150, 150, 150}}, {close_a, {100, 100, 100}},
                                             {close_b, {100.4, 100.4, 100.4}}, {other_operation, {250, 250, 250}}}),
                            "old-1", "abc", iso_at(0)))->status, 201);
  ASSERT_EQ(s.post(wrap_doc(make_doc(newer, {{seq, {100, 100, 100}}, {tiled, {180, 180, 180}}, {close_a, {100.4, 100.4, 100.4}},
                                             {close_b, {100, 100, 100}}, {other_operation, {50, 50, 50}}}),
                            "new-1", "abc", iso_at(1)))->status, 201);
  auto rk = s.get("/api/v1/rankings?commit=abc&family=lum");
  ASSERT_EQ(rk["groups"].size(), 1u);
  const auto& g = rk["groups"][0];
  EXPECT_EQ(g["config"], "1080p/cold");
  ASSERT_EQ(g["flips"].size(), 1u) << g["flips"].dump(1);
  EXPECT_EQ(g["flips"][0]["faster_on_a"], "prefetch4_64");
  EXPECT_EQ(g["flips"][0]["faster_on_b"], "sequential_256");
  EXPECT_EQ(g["flips"][0]["operation"], "luminance sum");
  std::map<std::string, json> order;
  for (const auto& v : g["gpu_order"]) order[v["variant"]] = v;
  EXPECT_EQ(order["prefetch4_64"]["fastest_first"][0]["gpu"], "Old GPU") << "the older GPU beats the newer one";
  EXPECT_EQ(order["prefetch4_64"]["fastest"], "Old GPU");
  EXPECT_TRUE(order["subgroup_add_256"]["tie"].get<bool>()) << order["subgroup_add_256"].dump();
  EXPECT_TRUE(order["subgroup_add_256"]["fastest"].is_null());
  s.get("/api/v1/rankings?commit=nope", 404);
  EXPECT_EQ(s.get("/api/v1/gpus")["gpus"].size(), 2u);
  EXPECT_EQ(s.get("/api/v1/runs?commit=abc&limit=1")["runs"].size(), 1u);
}

TEST(ServerStorage, MigrationsWalAndForeignKeys) {
  TempDir dir;
  const std::string db = dir.db("m.db");
  { shaderwatch::Store s({.db = db}); EXPECT_EQ(s.schema_version(), shaderwatch::Store::kSchemaVersion); }
  auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
  if (c->engine() == shaderwatch::sql::Engine::Sqlite) {
    auto& st = c->q("PRAGMA journal_mode");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.text(0), "wal");
    st.reset();
  }
  for (const char* t : {"tokens", "gpus", "benchmarks", "series", "runs", "row_shapes", "result_sets", "points", "alerts"})
    EXPECT_NO_THROW(c->q(cat("SELECT COUNT(*) FROM ", t)).run()) << t;
  EXPECT_THROW(c->exec("INSERT INTO series(benchmark_id, gpu_id) VALUES(999, 999)"), shaderwatch::sql::Error)
      << "foreign keys are enforced";
  // A database from a newer server is refused rather than misread.
  c->set_schema_version(99);
  c.reset();
  EXPECT_THROW(shaderwatch::Store({.db = db}), std::runtime_error);
}

TEST(ServerQueries, OldDecoratedNamesJoinTheCleanSeries) {
  // bf808c9's files name "…/cold/iterations:1/manual_time"; today's bench writes "…/cold": one series.
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const std::vector<double> reps = {100, 101, 99};
  ASSERT_EQ(s.post(wrap_doc(make_doc(Gpu{}, {{"k/x/1/cold/iterations:1/manual_time", reps}}), "old", "c1", iso_at(0)))->status, 201);
  ASSERT_EQ(s.post(wrap_doc(make_doc(Gpu{}, {{"k/x/1/cold", reps}}), "new", "c2", iso_at(1)))->status, 201);
  auto cmp = s.get("/api/v1/compare?base=old&contender=new");
  ASSERT_EQ(cmp["benchmarks"].size(), 1u) << cmp;
  EXPECT_EQ(cmp["benchmarks"][0]["benchmark"], "k/x/1/cold");
  EXPECT_TRUE(cmp["only_in_base"].empty());
}
