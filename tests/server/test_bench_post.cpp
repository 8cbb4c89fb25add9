// shaderwatch-bench --post: the bench (on lavapipe) uploads its own results to a real server on
// 127.0.0.1, and says so with its exit status when it cannot.
#include "../run_command.h"
#include "test_util.hpp"

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
  EXPECT_NE(r.output.find("post: run bench-post-1 stored (HTTP 201)"), std::string::npos) << r.output;
  const auto run = s.get("/api/v1/runs/bench-post-1")["run"];
  EXPECT_EQ(run["commit"], "abc123");
  EXPECT_EQ(run["runner"], "lavapipe-box");
  const auto v = s.get("/api/v1/runs/bench-post-1/verdict");
  EXPECT_EQ(v["verdict"], "pass") << v.dump(1);
  EXPECT_EQ(s.get("/api/v1/series")["series"].size(), 2u) << "hot and cold";
}

TEST(BenchPost, EditedKernelsAreNotPosted) {
  // Times of a --kernels-dir copy (a shader under work, a mutant) would join the built-in kernels' series.
  TempDir dir;
  const auto r = run_command(bench("SHADERWATCH_TOKEN=t SHADERWATCH_COMMIT=abc123",
                                   "--post http://127.0.0.1:1 --run-id edited --kernels-dir " SHADERWATCH_KERNELS_DIR,
                                   dir.file("out.json")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--post does not go with --kernels-dir"), std::string::npos) << r.output;
}

TEST(BenchPost, AnUnreachableServerExits3) {
  TempDir dir;
  const auto r = run_command(bench("SHADERWATCH_TOKEN=t SHADERWATCH_COMMIT=abc123",
                                   "--post http://127.0.0.1:1 --run-id bench-post-2 --post-attempts 2", dir.file("out.json")));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("try 2 of 2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("post: run bench-post-2 failed: no answer from http://127.0.0.1:1"), std::string::npos) << r.output;
}
