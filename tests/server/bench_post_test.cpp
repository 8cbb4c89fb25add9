// shaderwatch-bench --post: the bench (on lavapipe) uploads its own results to a real server on
// 127.0.0.1, and says so with its exit status when it cannot.
#include <fstream>

#include "../run_command.h"
#include "test_util.h"

using namespace swt;

namespace {
std::string bench(const std::string& env, const std::string& args, const std::string& out) {
  return env + " " + SHADERWATCH_BENCH + " --quick --filter '^lum/sequential_256$' --sizes 320x180 --seed 5" +
         " --benchmark_out=" + out + " --benchmark_format=json " + args + " 2>&1";
}
}  // namespace

TEST(BenchPost, TheBenchPostsItsOwnRun) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const std::string url = "http://127.0.0.1:" + std::to_string(s.port);
  const auto r = run_command(bench("SHADERWATCH_TOKEN=" + s.token + " SHADERWATCH_COMMIT=abc123",
                                   "--post " + url + " --run-id bench-post-1 --runner lavapipe-box", dir.file("out.json")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("post: run bench-post-1 stored (HTTP 201): verdict PASS: " + url + "/#/runs/bench-post-1"),
            std::string::npos)
      << "the server's verdict and the run's page, in one line: " << r.output;
  const auto run = s.get("/api/v1/runs/bench-post-1")["run"];
  EXPECT_EQ(run["commit"], "abc123");
  EXPECT_EQ(run["runner"], "lavapipe-box");
  const auto v = s.get("/api/v1/runs/bench-post-1/verdict");
  EXPECT_EQ(v["verdict"], "pass") << v.dump(1);
  EXPECT_EQ(s.get("/api/v1/series")["series"].size(), 2u) << "hot and cold";
}

// --gate: the bench exits with the server's verdict. Two earlier runs of the same benchmarks a hundred times faster
// (the bench's own document, scaled) make this run a slowdown on a server that gates a CPU device's timings (its
// gate set to judge from the third run of a suite this small): exit 2, and the line says why.
TEST(BenchPost, WithGateTheBenchExitsWithTheServersVerdict) {
  TempDir dir;
  shaderwatch::StoreOptions so;
  so.gate_cpu_timings = true;
  so.gate.min_swing_series_runs = 2;
  so.gate.model.min_changes = 2;
  TestServer s(dir.db("sw.db"), {}, true, so);
  const std::string url = "http://127.0.0.1:" + std::to_string(s.port);
  const auto first = run_command(bench("", "", dir.file("first.json")));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::ifstream in(dir.file("first.json"));
  json fast = json::parse(in);
  for (auto& row : fast["benchmarks"])
    for (const char* key : {"real_time", "cpu_time"})
      if (row.contains(key) && row.value("aggregate_name", std::string()) != "cv") row[key] = row[key].get<double>() / 100;
  int minute = 0;
  for (const char* id : {"fast-1", "fast-2"}) ASSERT_EQ(s.post(wrap_doc(fast, id, id, iso_at(minute++)))->status, 201);

  const auto r = run_command(bench("SHADERWATCH_TOKEN=" + s.token + " SHADERWATCH_COMMIT=slow",
                                   "--post " + url + " --run-id bench-gate-1 --gate", dir.file("out.json")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("post: run bench-gate-1 stored (HTTP 201): verdict FAIL (2 slowdowns): " + url +
                          "/#/runs/bench-gate-1"),
            std::string::npos)
      << r.output;
  // Under it, the server's explanation of each failing benchmark in its own words, then the next steps.
  const json v = s.get("/api/v1/runs/bench-gate-1/verdict");
  ASSERT_EQ(v["explanations"].size(), 2u) << v.dump(1);
  for (const auto& e : v["explanations"]) {
    EXPECT_NE(r.output.find("  " + e["benchmark"].get<std::string>() + ": " + e["headline"].get<std::string>() + "\n    " +
                            e["evidence"].get<std::string>() + "\n    chart: " + url + "/#/series/"),
              std::string::npos) << r.output;
  }
  EXPECT_NE(r.output.find("  measure it alone: shaderwatch-bench --filter '^"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  compare with its baseline: " + url + "/#/compare?base=fast-2&contender=bench-gate-1"),
            std::string::npos) << r.output;
  // Without --gate the same verdict is said, and the bench's status is its own.
  const auto plain = run_command(bench("SHADERWATCH_TOKEN=" + s.token + " SHADERWATCH_COMMIT=slow2",
                                       "--post " + url + " --run-id bench-gate-2", dir.file("out2.json")));
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("verdict FAIL"), std::string::npos) << plain.output;
  // --gate without --post is a usage error.
  EXPECT_EQ(run_command(bench("", "--gate", dir.file("out3.json"))).exit_code, 4);
}

TEST(BenchPost, EditedKernelsAreNotPosted) {
  // Times of a --kernels-dir copy (a shader under work, a mutant) would join the built-in kernels' series.
  TempDir dir;
  const auto r = run_command(bench("SHADERWATCH_TOKEN=t SHADERWATCH_COMMIT=abc123",
                                   "--post http://127.0.0.1:1 --run-id edited --kernels-dir " SHADERWATCH_KERNELS_DIR,
                                   dir.file("out.json")));
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("--post does not go with --kernels-dir"), std::string::npos) << r.output;
}

// Found before the GPU work, not after it: the benchmarks do not run (no progress line).
bool benchmarks_ran(const std::string& output) { return output.find("[1/") != std::string::npos; }

TEST(BenchPost, AnUnreachableServerExits3BeforeAnyWork) {
  TempDir dir;
  const auto r = run_command(bench("SHADERWATCH_TOKEN=t SHADERWATCH_COMMIT=abc123",
                                   "--post http://127.0.0.1:1 --run-id bench-post-2 --post-attempts 2", dir.file("out.json")));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("--post http://127.0.0.1:1: the results server cannot be reached"), std::string::npos) << r.output;
  EXPECT_FALSE(benchmarks_ran(r.output)) << r.output;
}

TEST(BenchPost, ATokenTheServerRefusesExits4BeforeAnyWork) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const std::string url = "http://127.0.0.1:" + std::to_string(s.port);
  auto r = run_command(bench("SHADERWATCH_TOKEN=not-a-token SHADERWATCH_COMMIT=abc123", "--post " + url + " --run-id refused",
                             dir.file("out.json")));
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("the server refuses the token in SHADERWATCH_TOKEN (HTTP 401: invalid or revoked token"),
            std::string::npos) << r.output;
  EXPECT_FALSE(benchmarks_ran(r.output)) << r.output;
  // A token that may triage but not upload: 403, named.
  const std::string triage = s.store->tokens().create("triager", shaderwatch::TokenScope::Triage);
  r = run_command(bench("SHADERWATCH_TOKEN=" + triage + " SHADERWATCH_COMMIT=abc123", "--post " + url + " --run-id refused",
                        dir.file("out.json")));
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("posting a run needs scope upload or admin"), std::string::npos) << r.output;
  EXPECT_EQ(s.get("/api/v1/runs")["runs"].size(), 0u) << "the check stores nothing";
}

TEST(BenchPost, EveryMissingOptionIsNamedAtOnce) {
  TempDir dir;
  const auto r = run_command(std::string("env -u SHADERWATCH_TOKEN -u SHADERWATCH_COMMIT -u SHADERWATCH_RUN_ID ") +
                             SHADERWATCH_BENCH + " --quick --post http://127.0.0.1:1 2>&1");
  EXPECT_EQ(r.exit_code, 4) << r.output;
  for (const char* missing : {"--benchmark_out=FILE", "SHADERWATCH_TOKEN", "--commit", "--run-id"})
    EXPECT_NE(r.output.find(missing), std::string::npos) << missing << " not named in: " << r.output;
}

// GET /api/v1/upload-check answers whether a token may post runs, and stores nothing.
TEST(BenchPost, TheUploadCheckAnswersPerScope) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  auto status = [&](const std::string& token) {
    auto c = s.client();
    if (!token.empty()) c->set_bearer_token_auth(token);
    auto r = c->Get("/api/v1/upload-check");
    return r ? r->status : 0;
  };
  EXPECT_EQ(status(s.store->tokens().create("uploader", shaderwatch::TokenScope::Upload)), 200);
  EXPECT_EQ(status(s.token), 200) << "admin";
  EXPECT_EQ(status(s.store->tokens().create("triager", shaderwatch::TokenScope::Triage)), 403);
  EXPECT_EQ(status("no-such-token"), 401);
  EXPECT_EQ(status(""), 401);
}
