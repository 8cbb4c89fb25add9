// The single-run gate through the server: real H200 runs, a CPU device, a new deployment's second run.
#include <array>

#include "fixture_file.h"
#include "render/escape.h"
#include "test_util.h"

using namespace swt;

namespace {

constexpr const char* kSlowed = "postfx/blur_shared_r16/7680x4320/cold";

// The run's every repetition (and its aggregates) of one benchmark times `factor`, as a slower kernel would be.
json slowed(json doc, const std::string& name, double factor) {
  int n = 0;
  for (auto& row : doc["benchmarks"]) {
    if (row.value("run_name", std::string()) != name) continue;
    if (row.value("aggregate_name", std::string()) == "cv") continue;  // a ratio, not a time
    for (const char* key : {"real_time", "cpu_time"}) row[key] = row[key].get<double>() * factor;
    ++n;
  }
  EXPECT_GE(n, 10) << name << " has its 10 repetitions in the fixture";
  return doc;
}

// The document as a commit that changed `kernel`'s shader runs it: its SPIR-V (every row's label, its compiled entry)
// is another. A slowdown of a kernel that ran as before (the same SPIR-V, driver and runner) is a slow mode to the
// gate unless it passes the prior's floor.
json recompiled(json doc, const std::string& kernel, const std::string& spirv = "5107ed0000c0ffee") {
  int n = 0;
  for (auto& row : doc["benchmarks"]) {
    const std::string name = row.value("run_name", std::string());
    if (name.rfind(kernel + "/", 0) != 0 || !row.contains("label")) continue;
    std::string label = row["label"];
    const auto at = label.find("spirv:");
    if (at == std::string::npos) continue;
    label.replace(at + 6, label.find(' ', at) == std::string::npos ? std::string::npos : label.find(' ', at) - at - 6, spirv);
    row["label"] = label;
    ++n;
  }
  EXPECT_GE(n, 10) << kernel << " has labelled rows in the fixture";
  if (doc.contains("sw_compiled") && doc["sw_compiled"].contains(kernel)) doc["sw_compiled"][kernel]["spirv"] = spirv;
  return doc;
}

std::string body(const json& doc, const std::string& id, const std::string& commit, const std::string& at,
                 const std::string& branch = "main", const std::string& merge_base = "") {
  json run = {{"id", id}, {"commit", commit}, {"branch", branch}, {"runner", "h200-box"}, {"started_at", at}};
  if (!merge_base.empty()) run["merge_base"] = merge_base;
  return json{{"run", run}, {"benchmark", doc}}.dump();
}

void post_ok(const TestServer& s, const std::string& b) {
  auto r = s.post(b);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body.substr(0, 500);
}

// One field of each entry of a verdict's list.
template <class T>
std::vector<T> each(const json& list, const char* key) {
  std::vector<T> out;
  for (const auto& e : list) out.push_back(e.at(key).get<T>());
  return out;
}
std::vector<std::string> names(const json& list) { return each<std::string>(list, "benchmark"); }

// Three real H200 runs of one build (86de8e8), read once; posted as main's commits c1-c3 (the A/A).
const std::array<json, 3>& real_h200_runs() {
  static const std::array<json, 3> runs = {read_fixture("real/h200-86de8e8-r1.json.gz"),
                                           read_fixture("real/h200-86de8e8-r2.json.gz"),
                                           read_fixture("real/h200-86de8e8-r3.json.gz")};
  return runs;
}
void post_real_aa(const TestServer& s) {
  const auto& [r1, r2, r3] = real_h200_runs();
  post_ok(s, body(r1, "r1", "c1", "2026-11-27T10:00:00Z"));
  post_ok(s, body(r2, "r2", "c2", "2026-11-27T10:05:00Z"));
  post_ok(s, body(r3, "r3", "c3", "2026-11-27T10:10:00Z"));
}

}  // namespace

// Two processes of one binary on one H200 (every benchmark over 30 us within 0.44%, under 30 us within 3.8%),
// posted as two commits: the second run is judged against the first and passes. The same pair with one
// benchmark 3.6x slower fails on its second run, on main and on a branch, naming that benchmark alone.
TEST(GateE2E, ARealH200PairPassesAndA36xSlowdownFailsTheSecondRun) {
  const json a = read_fixture("real/h200-50e20fd-a.json.gz"), b = read_fixture("real/h200-50e20fd-b.json.gz");
  TempDir dir;
  {
    TestServer s(dir.db("pair.db"));
    post_ok(s, body(a, "a", "c1", "2026-11-24T10:00:00Z"));
    post_ok(s, body(b, "b", "c2", "2026-11-24T10:05:00Z"));
    const json v = s.get("/api/v1/runs/b/verdict");
    EXPECT_EQ(v["verdict"], "pass") << v["slowdowns"].dump(1) << v["regressions"].dump(1);
    EXPECT_TRUE(v["slowdowns"].empty());
    const json& cov = v["coverage"];
    EXPECT_EQ(cov["previous_runs"], s.get("/api/v1/runs/b")["run"]["benchmarks"]) << "every benchmark against the previous run";
    EXPECT_EQ(cov["level"], 0);
    EXPECT_TRUE(cov["single_run_gate"].get<bool>());
    EXPECT_EQ(cov["line"], "history: 1 run; judged against the previous run; floors from the prior (at least 100%) until "
                           "200 run-to-run changes (0 so far); change points from 18 runs");

    // A pull request forked from c1 that makes the blur 3.6x slower fails on its own run.
    post_ok(s, body(slowed(b, kSlowed, 3.6), "pr", "p1", "2026-11-24T10:10:00Z", "topic", "c1"));
    const json pr = s.get("/api/v1/runs/pr/verdict");
    EXPECT_EQ(pr["verdict"], "fail");
    EXPECT_EQ(names(pr["slowdowns"]), std::vector<std::string>{kSlowed});
    EXPECT_EQ(pr["slowdowns"][0]["against"], "previous_runs");
    EXPECT_NEAR(pr["slowdowns"][0]["delta_pct"].get<double>(), 260, 10);
    EXPECT_TRUE(pr["regressions"].empty()) << "a branch raises no alert";
    // The reports say it, and what the verdict could see.
    auto c = s.client();
    auto md = c->Get("/api/v1/runs/pr/summary.md");
    ASSERT_TRUE(md);
    EXPECT_NE(md->body.find("1 slowdown in this run"), std::string::npos) << md->body.substr(0, 600);
    EXPECT_NE(md->body.find(kSlowed), std::string::npos);
    EXPECT_NE(md->body.find("history: 1 run; judged against the previous run"), std::string::npos);
    auto junit = c->Get("/api/v1/runs/pr/junit.xml");
    ASSERT_TRUE(junit);
    EXPECT_NE(junit->body.find("<failure type=\"slowdown\" message=\"slowdown 3.60x"), std::string::npos) << junit->body;
    EXPECT_NE(junit->body.find("<property name=\"history\" value=\"history: 1 run;"), std::string::npos);
    // Against what, said as the verdict judged it: main at the merge base, not the branch's own previous run.
    EXPECT_NE(md->body.find("main at the merge base c1 (run a): the previous run"), std::string::npos) << md->body;
    EXPECT_NE(junit->body.find("against main at the merge base c1 (run a): the previous run"), std::string::npos) << junit->body;
    EXPECT_NE(junit->body.find("<property name=\"merge_base\" value=\"c1\"/>"), std::string::npos);
    EXPECT_NE(junit->body.find("<property name=\"baseline_run\" value=\"a\"/>"), std::string::npos);
  }
  {
    TestServer s(dir.db("main.db"));
    post_ok(s, body(a, "a", "c1", "2026-11-24T10:00:00Z"));
    post_ok(s, body(slowed(b, kSlowed, 3.6), "b", "c2", "2026-11-24T10:05:00Z"));
    const json v = s.get("/api/v1/runs/b/verdict");
    EXPECT_EQ(v["verdict"], "fail");
    EXPECT_EQ(names(v["slowdowns"]), std::vector<std::string>{kSlowed});
    const json summary = s.get("/api/v1/summary");
    ASSERT_FALSE(summary["latest_runs"].empty());
    EXPECT_EQ(summary["latest_runs"][0]["verdict"]["slowdowns"], 1);
    EXPECT_EQ(summary["latest_runs"][0]["verdict"]["failing"][0], kSlowed);
  }
}

// The gate's parameters as data (serve --gate-config): an override for a branch pattern raises that branch's floor
// (here past the 3.6x slowdown, which then passes there), another branch keeps the server's, and the verdict says
// what was overridden, in its coverage line and field.
TEST(GateE2E, AGateConfigurationSetsTheFloorOfTheRunsOfABranchPattern) {
  const json a = read_fixture("real/h200-50e20fd-a.json.gz"), b = read_fixture("real/h200-50e20fd-b.json.gz");
  TempDir dir;
  shaderwatch::StoreOptions so;
  so.gate_config = shaderwatch::analysis::parse_gate_config(
      R"({"overrides": [{"branch": "lenient/*", "set": {"min_effect": 5}}, {"gpu": "*H100*", "set": {"z": 9}}]})");
  TestServer s(dir.db("config.db"), {}, true, so);
  post_ok(s, body(a, "a", "c1", "2026-11-24T10:00:00Z"));
  post_ok(s, body(slowed(b, kSlowed, 3.6), "topic", "p1", "2026-11-24T10:10:00Z", "topic", "c1"));
  post_ok(s, body(slowed(b, kSlowed, 3.6), "lenient", "p1", "2026-11-24T10:15:00Z", "lenient/perf", "c1"));
  const json topic = s.get("/api/v1/runs/topic/verdict");
  EXPECT_EQ(topic["verdict"], "fail");
  EXPECT_EQ(names(topic["slowdowns"]), std::vector<std::string>{kSlowed});
  EXPECT_FALSE(topic["coverage"].contains("gate")) << "no override matches branch topic on an H200";
  const json lenient = s.get("/api/v1/runs/lenient/verdict");
  EXPECT_EQ(lenient["verdict"], "pass") << lenient["slowdowns"].dump(1);
  EXPECT_EQ(lenient["coverage"]["gate"], "gate for branch 'lenient/*', GPU '*': min_effect 5");
  const std::string line = lenient["coverage"]["line"];
  EXPECT_NE(line.find("; gate for branch 'lenient/*', GPU '*': min_effect 5"), std::string::npos) << line;
}

namespace {
// Issue 51's commit on an H200: lum/grid_stride_vec4 reads its image three times (the same answer), 47% slower
// at 1920x1080 hot, 22% cold, 2.6x at 4K and 2.9x at 8K (as measured there).
json grid_stride_read_thrice(json doc) {
  doc = recompiled(std::move(doc), "lum/grid_stride_vec4");
  const std::string k = "lum/grid_stride_vec4/";
  doc = slowed(std::move(doc), k + "1920x1080/hot", 1.47);
  doc = slowed(std::move(doc), k + "1920x1080/cold", 1.22);
  for (const char* mode : {"hot", "cold"}) {
    doc = slowed(std::move(doc), k + "3840x2160/" + mode, 2.6);
    doc = slowed(std::move(doc), k + "7680x4320/" + mode, 2.9);
  }
  return doc;
}
bool has(const json& list, const std::string& name) {
  for (const auto& e : list)
    if (e.at("benchmark") == name) return true;
  return false;
}
}  // namespace

// Issue 51's three cases on three real H200 runs of one build (86de8e8): the GPU's own noise sets every floor from
// the third run on. The A/A runs pass; the 47% step at 1080p hot (10.9 us: under 30 us, where the target is 25%)
// fails the run that brings it on main and on a branch, its 22% cold step is a suspect; the revert passes; and after
// that regression and its revert, a 3.6x slowdown of the 8K blur still fails (the revert's swing is not the noise).
TEST(GateE2E, TheGpusOwnNoiseSetsTheFloor) {
  const auto& [r1, r2, r3] = real_h200_runs();
  const std::string hot = "lum/grid_stride_vec4/1920x1080/hot", cold = "lum/grid_stride_vec4/1920x1080/cold";
  TempDir dir;
  TestServer s(dir.db("h200.db"));
  post_real_aa(s);
  for (const char* id : {"r2", "r3"}) {
    const json v = s.get(cat("/api/v1/runs/", id, "/verdict"));
    EXPECT_EQ(v["verdict"], "pass") << id << v["slowdowns"].dump(1);
  }
  const json aa = s.get("/api/v1/runs/r3/verdict");
  ASSERT_TRUE(aa["coverage"]["noise_model"].is_object()) << aa["coverage"].dump(1);
  EXPECT_GE(aa["coverage"]["noise_model"]["changes"].get<int>(), 300) << "one change per series from two runs";
  EXPECT_NE(aa["coverage"]["line"].get<std::string>().find("x each benchmark's run-to-run noise"), std::string::npos)
      << aa["coverage"]["line"];

  // The same commit on a branch forked from c3 fails on its own run.
  post_ok(s, body(grid_stride_read_thrice(r1), "pr", "p1", "2026-11-27T10:12:00Z", "topic", "c3"));
  const json pr = s.get("/api/v1/runs/pr/verdict");
  EXPECT_EQ(pr["verdict"], "fail");
  EXPECT_TRUE(has(pr["slowdowns"], hot)) << pr["slowdowns"].dump(1);

  post_ok(s, body(grid_stride_read_thrice(r1), "slow", "c4", "2026-11-27T10:15:00Z"));
  const json v = s.get("/api/v1/runs/slow/verdict");
  EXPECT_EQ(v["verdict"], "fail");
  EXPECT_TRUE(has(v["slowdowns"], hot)) << v["slowdowns"].dump(1);
  EXPECT_TRUE(has(v["slowdowns"], cold) || has(v["suspects"], cold)) << v["suspects"].dump(1);
  EXPECT_GE(v["slowdowns"].size(), 5u) << "the 4K and 8K steps too";
  for (const auto& e : v["slowdowns"]) {
    EXPECT_EQ(e["benchmark"].get<std::string>().rfind("lum/grid_stride_vec4/", 0), 0u) << "a slowed one: " << e.dump();
    EXPECT_LT(e["floor_pct"].get<double>(), 25) << e.dump();
  }

  post_ok(s, body(r2, "revert", "c5", "2026-11-27T10:20:00Z"));
  EXPECT_EQ(s.get("/api/v1/runs/revert/verdict")["verdict"], "pass");

  post_ok(s, body(recompiled(slowed(r3, kSlowed, 3.6), "postfx/blur_shared_r16"), "blur", "c6", "2026-11-27T10:25:00Z"));
  const json b = s.get("/api/v1/runs/blur/verdict");
  EXPECT_EQ(b["verdict"], "fail") << b["coverage"].dump(1);
  EXPECT_EQ(names(b["slowdowns"]), std::vector<std::string>{kSlowed});
}

namespace {
// The open or closed regression alerts of one benchmark.
std::vector<json> regression_alerts(const TestServer& s, const std::string& name) {
  std::vector<json> out;
  const json page = s.get("/api/v1/alerts?kind=regression&limit=500");
  for (const auto& a : page["alerts"])
    if (a["benchmark"] == name) out.push_back(a);
  return out;
}
std::vector<std::int64_t> ids(const json& list) { return each<std::int64_t>(list, "id"); }
}  // namespace

// On an H200, one run of seven ran an unchanged kernel 49% slower (lum/prefetch4_2xshared_1024/3840x2160/cold, 58 ->
// 86 us, every repetition; its hot twin as before). A slowdown of a kernel that ran as before (SPIR-V, driver, runner)
// past the model's floor is a suspect, named on the coverage line; the same slowdown with the kernel recompiled fails.
TEST(GateE2E, AnUnchangedKernelsSlowModeIsASuspectNotAFailure) {
  const auto& [r1, r2, r3] = real_h200_runs();
  const std::string mode = "lum/prefetch4_2xshared_1024/3840x2160/cold";
  TempDir dir;
  TestServer s(dir.db("mode.db"));
  post_real_aa(s);
  post_ok(s, body(slowed(r1, mode, 1.49), "slow-mode", "c4", "2026-11-27T10:15:00Z"));
  const json v = s.get("/api/v1/runs/slow-mode/verdict");
  EXPECT_EQ(v["verdict"], "pass") << v["slowdowns"].dump(1);
  EXPECT_TRUE(has(v["suspects"], mode)) << v["suspects"].dump(1);
  EXPECT_NE(v["coverage"]["line"].get<std::string>().find("1 past its floor held as suspects: kernel, driver and runner as before"),
            std::string::npos)
      << v["coverage"]["line"];
  EXPECT_EQ(v["coverage"]["noise_model"]["held_as_before"], 1);
  EXPECT_TRUE(regression_alerts(s, mode).empty()) << "no gate failure, no alert";

  post_ok(s, body(recompiled(slowed(r2, mode, 1.49), "lum/prefetch4_2xshared_1024"), "slower", "c5", "2026-11-27T10:20:00Z"));
  const json w = s.get("/api/v1/runs/slower/verdict");
  EXPECT_EQ(w["verdict"], "fail");
  EXPECT_EQ(names(w["slowdowns"]), std::vector<std::string>{mode});
}

// A kernel recompiled a run ago, its first run under the floor (a noisier run, as the H200 had: floors x2), is not
// "as before" on its next run: the baseline's median still comes from the old kernel's runs, so that run fails.
TEST(GateE2E, AKernelChangedWithinTheBaselinesRunsIsNotAsBefore) {
  const auto& [r1, r2, r3] = real_h200_runs();
  const std::string k = "lum/prefetch4_2xshared_1024", b = k + "/3840x2160/cold";
  TempDir dir;
  TestServer s(dir.db("changed.db"));
  post_real_aa(s);
  post_ok(s, body(recompiled(slowed(r1, b, 1.03), k), "small", "c4", "2026-11-27T10:15:00Z"));  // under the 5% minimum
  EXPECT_EQ(s.get("/api/v1/runs/small/verdict")["verdict"], "pass");
  post_ok(s, body(recompiled(slowed(r2, b, 1.25), k), "again", "c4", "2026-11-27T10:20:00Z"));
  const json v = s.get("/api/v1/runs/again/verdict");
  EXPECT_EQ(v["verdict"], "fail") << v["coverage"]["line"];
  EXPECT_EQ(names(v["slowdowns"]), std::vector<std::string>{b});
}

// Issue 51, item 3, on the real H200 runs: the gate's failure on main is a regression alert at that run, attributed to
// its commit; the rerun of that commit and the next commits still carry the slowdown and fail on that alert (their
// baseline has moved up to meet it: no slowdown of their own); the revert passes, and once the series is back the
// evidence closes the alert as fixed.
TEST(GateE2E, ASlowdownThatStaysFailsEveryMainRunUntilItsRevert) {
  const auto& [r1, r2, r3] = real_h200_runs();
  const std::string hot = "lum/grid_stride_vec4/1920x1080/hot";
  TempDir dir;
  TestServer s(dir.db("stays.db"));
  post_real_aa(s);
  EXPECT_TRUE(regression_alerts(s, hot).empty());

  post_ok(s, body(grid_stride_read_thrice(r1), "slow", "c4", "2026-11-27T10:15:00Z"));
  const json first = s.get("/api/v1/runs/slow/verdict");
  EXPECT_EQ(first["verdict"], "fail");
  EXPECT_TRUE(has(first["slowdowns"], hot)) << first["slowdowns"].dump(1);
  const auto raised = regression_alerts(s, hot);
  ASSERT_EQ(raised.size(), 1u) << "the gate's failure on main is an alert";
  const json alert = raised[0];
  EXPECT_EQ(alert["state"], "new");
  EXPECT_EQ(alert["commit"], "c4");
  EXPECT_EQ(alert["cause"], "commit") << alert["attribution"].dump(1);
  EXPECT_NEAR(alert["delta_pct"].get<double>(), 47, 5);
  ASSERT_TRUE(alert["attribution"]["gate"].is_object()) << alert["attribution"].dump(1);
  EXPECT_EQ(alert["attribution"]["gate"]["run"], "slow");
  EXPECT_NE(alert["attribution"]["summary"].get<std::string>().find("failed the single-run gate at run slow"),
            std::string::npos);
  EXPECT_TRUE(ids(first["regressions"]).empty()) << "at its own run the alert is the slowdown, listed once";
  EXPECT_EQ(s.get("/api/v1/alerts?kind=regression&limit=500")["total"].get<int>(), first["slowdowns"].size())
      << "one alert per failed slowdown, no more";

  // The rerun of c4, then two later commits: each still carries it.
  const std::vector<std::pair<std::string, json>> carrying = {
      {"c4", grid_stride_read_thrice(r2)}, {"c5", grid_stride_read_thrice(r3)}, {"c6", grid_stride_read_thrice(r1)}};
  int minute = 20;
  for (const auto& [commit, doc] : carrying) {
    const std::string id = "carry-" + commit + "-" + std::to_string(minute);
    post_ok(s, body(doc, id, commit, cat("2026-11-27T10:", std::to_string(minute), ":00Z")));
    minute += 5;
    const json v = s.get(cat("/api/v1/runs/", id, "/verdict"));
    EXPECT_EQ(v["verdict"], "fail") << id << v["coverage"].dump(1);
    const auto failing = ids(v["regressions"]);
    EXPECT_NE(std::find(failing.begin(), failing.end(), alert["id"].get<std::int64_t>()), failing.end())
        << id << ": fails on the open alert " << v["regressions"].dump(1);
    EXPECT_FALSE(has(v["slowdowns"], hot)) << id << ": judged against the new level, no second alert";
  }
  EXPECT_EQ(regression_alerts(s, hot).size(), 1u) << "the later runs raised no alert of their own";

  // The revert passes at once; the alert is closed by the evidence once the series' last runs are back.
  const std::vector<json> back = {r2, r3, r1, r2};
  for (std::size_t i = 0; i < back.size(); ++i) {
    const std::string id = "back" + std::to_string(i);
    post_ok(s, body(back[i], id, "c" + std::to_string(7 + i), cat("2026-11-27T10:", std::to_string(minute), ":00Z")));
    minute += 5;
    EXPECT_EQ(s.get(cat("/api/v1/runs/", id, "/verdict"))["verdict"], "pass") << id;
  }
  const auto closed = regression_alerts(s, hot);
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0]["state"], "fixed") << closed[0].dump(1);
  EXPECT_NE(closed[0]["note"].get<std::string>().find("back near the old level"), std::string::npos) << closed[0]["note"];
  EXPECT_NE(closed[0]["note"].get<std::string>().find("back since run back0"), std::string::npos)
      << "the revert is linked to it: " << closed[0]["note"];
}

namespace {
// Runs of `kernels` benchmarks with 1% noise on one device; benchmark 0 is `factor` times slower in the last run.
void post_series(const TestServer& s, const std::string& device_type, int runs, int kernels, double factor,
                 std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.01);
  for (int i = 0; i < runs; ++i) {
    std::vector<std::pair<std::string, std::vector<double>>> benches;
    for (int k = 0; k < kernels; ++k) {
      const double level = 1e5 * (1 + k) * (k == 0 && i == runs - 1 ? factor : 1.0) * std::exp(noise(rng));
      std::vector<double> reps;
      for (int r = 0; r < 10; ++r) reps.push_back(level * std::exp(noise(rng) / 3));
      benches.emplace_back(cat("lum/k", std::to_string(k), "/1080p/cold"), reps);
    }
    json doc = make_doc(Gpu{}, benches);
    doc["context"]["sw_device_type"] = device_type;
    post_ok(s, body(doc, cat("r", std::to_string(i)), cat("c", std::to_string(i)), iso_at(i)));
  }
}
}  // namespace

// lavapipe's times on a shared 2-core runner moved 6.6x between two runs: a device of type cpu is judged on
// correctness unless the server is told to gate its timings too.
TEST(GateE2E, ACpuDevicesTimingsGateOnlyWhenTheServerIsToldTo) {
  TempDir dir;
  // The third run's verdict, benchmark 0 6.6x slower there, on a device of that type.
  const auto third_run = [&](const std::string& db, const std::string& device_type, bool gate_cpu) {
    shaderwatch::StoreOptions so;
    so.gate_cpu_timings = gate_cpu;
    TestServer s(dir.db(db), {}, true, so);
    post_series(s, device_type, 3, 130, 6.6, 5);
    return s.get("/api/v1/runs/r2/verdict");
  };
  const json cpu = third_run("cpu.db", "cpu", false);
  EXPECT_EQ(cpu["verdict"], "pass");
  EXPECT_TRUE(cpu["slowdowns"].empty());
  EXPECT_TRUE(cpu["suspects"].empty());
  EXPECT_FALSE(cpu["coverage"]["timings_gated"].get<bool>());
  EXPECT_EQ(cpu["coverage"]["line"], "history: timings not judged (correctness only)");
  const json gated = third_run("cpu-gated.db", "cpu", true);
  EXPECT_EQ(gated["verdict"], "fail");
  EXPECT_EQ(names(gated["slowdowns"]), std::vector<std::string>{"lum/k0/1080p/cold"});
  EXPECT_EQ(third_run("gpu.db", "discrete", false)["verdict"], "fail") << "a GPU's timings gate by default";
}

// A suite too small to show the GPU's swings in one run waits for 240 earlier series-runs: 10 benchmarks
// are gated from their 25th run, and the verdict says so before.
TEST(GateE2E, ASmallSuiteWaitsUntilItsSeriesHoldEnoughRuns) {
  TempDir dir;
  {
    TestServer s(dir.db("early.db"));
    post_series(s, "discrete", 5, 10, 3.6, 9);
    const json v = s.get("/api/v1/runs/r4/verdict");
    EXPECT_EQ(v["verdict"], "pass");
    EXPECT_FALSE(v["coverage"]["single_run_gate"].get<bool>());
    EXPECT_NE(v["coverage"]["line"].get<std::string>().find("single-run gate waits for 240 earlier series-runs (40 so far)"),
              std::string::npos)
        << v["coverage"]["line"];
  }
  {
    TestServer s(dir.db("later.db"));
    post_series(s, "discrete", 25, 10, 3.6, 9);
    const json v = s.get("/api/v1/runs/r24/verdict");
    EXPECT_EQ(v["verdict"], "fail");
    EXPECT_EQ(names(v["slowdowns"]), std::vector<std::string>{"lum/k0/1080p/cold"});
    EXPECT_EQ(v["slowdowns"][0]["against"], "level");
  }
}

namespace {
// The kernel's compiled statistics as the driver would report them for the new code: registers 23 -> 25.
json with_registers(json doc, const std::string& kernel, int registers) {
  for (auto& pipeline : doc["sw_compiled"][kernel]["pipelines"])
    for (auto& executable : pipeline)
      for (auto& s : executable["statistics"])
        if (s["name"] == "Register Count") s["value"] = registers;
  return doc;
}
std::string text_of(const TestServer& s, const std::string& path) {
  auto r = s.client()->Get(path);
  EXPECT_TRUE(r && r->status == 200) << path;
  return r ? r->body : "";
}
}  // namespace

// Issue 52: the verdict explains each benchmark once (before -> after, against what, past which floor, what changed at
// that run, the next steps), and summary.md, junit.xml and results.csv each carry those very words; none words its
// own. On three real H200 runs and issue 51's commit (the kernel's SPIR-V and register count changed), on main and on
// a branch.
TEST(GateE2E, EveryOutputCarriesTheVerdictsOneExplanation) {
  const auto& [r1, r2, r3] = real_h200_runs();
  TempDir dir;
  TestServer s(dir.db("explain.db"));
  post_real_aa(s);
  const json slow_doc = with_registers(grid_stride_read_thrice(r1), "lum/grid_stride_vec4", 25);
  post_ok(s, body(slow_doc, "pr", "p1", "2026-11-27T10:12:00Z", "topic", "c3"));
  post_ok(s, body(slow_doc, "slow", "c4", "2026-11-27T10:15:00Z"));
  using shaderwatch::report::csv_field;
  using shaderwatch::report::md_text;
  using shaderwatch::report::xml_text;
  for (const std::string run : {"slow", "pr"}) {
    SCOPED_TRACE(run);
    const std::string base = "https://dash.example";
    const json v = s.get(cat("/api/v1/runs/", run, "/verdict?dashboard=https%3A%2F%2Fdash.example"));
    ASSERT_EQ(v["verdict"], "fail");
    const std::string md = text_of(s, cat("/api/v1/runs/", run, "/summary.md?dashboard=https%3A%2F%2Fdash.example"));
    const std::string junit = text_of(s, cat("/api/v1/runs/", run, "/junit.xml?dashboard=https%3A%2F%2Fdash.example"));
    const std::string csv = text_of(s, cat("/api/v1/runs/", run, "/results.csv?dashboard=https%3A%2F%2Fdash.example"));
    int failing = 0;
    for (const auto& e : v["explanations"]) {
      const std::string name = e["benchmark"], headline = e["headline"], evidence = e["evidence"];
      SCOPED_TRACE(name);
      // What changed at that run, from the store: the kernel's SPIR-V and its register count.
      EXPECT_NE(evidence.find("SPIR-V de183201 -> 5107ed00"), std::string::npos) << evidence;
      EXPECT_NE(evidence.find("CS Register Count 23 -> 25"), std::string::npos) << evidence;
      EXPECT_NE(evidence.find("same driver and runner"), std::string::npos) << evidence;
      if (run == "pr")
        EXPECT_EQ(e["against"].get<std::string>().rfind("main at the merge base c3 (run r3): ", 0), 0u) << e["against"];
      else
        EXPECT_EQ(e["baseline_run"], "r3");
      // Every output renders the same words.
      EXPECT_NE(md.find(md_text(headline)), std::string::npos) << md.substr(0, 3000);
      EXPECT_NE(md.find(md_text(evidence)), std::string::npos);
      EXPECT_NE(csv.find("\n" + name + ","), std::string::npos);
      EXPECT_NE(csv.find(csv_field(headline + "; " + evidence)), std::string::npos) << csv.substr(0, 2000);
      if (!e["failing"].get<bool>()) {
        EXPECT_NE(junit.find(xml_text(headline)), std::string::npos);
        continue;
      }
      ++failing;
      EXPECT_EQ(e["finding"], "slowdown");
      EXPECT_NE(junit.find("message=\"" + xml_text(headline) + "\">" + xml_text(headline) + "\n" + xml_text(evidence) + "\n"),
                std::string::npos) << junit.substr(0, 3000);
      // The next steps: the chart, the compare view, the command that measures it, bisect from this run.
      const json& next = e["next"];
      EXPECT_EQ(next["series_url"], cat(base, "/#/series/", std::to_string(e["series_id"].get<std::int64_t>())));
      EXPECT_EQ(next["reproduce"], "shaderwatch-bench --filter '^lum/grid_stride_vec4$' --sizes " + name.substr(21, name.find('/', 21) - 21));
      EXPECT_EQ(next["bisect"], cat("ci/bisect.py --server ", base, " --run ", run, " --benchmark '", name, "'"));
      for (const char* key : {"series_url", "compare_url", "reproduce", "bisect"})
        EXPECT_NE(junit.find(xml_text(next[key].get<std::string>())), std::string::npos) << key;
      EXPECT_NE(md.find(next["compare_url"].get<std::string>()), std::string::npos);
    }
    EXPECT_GE(failing, 5) << "the 1080p hot, 4K and 8K steps";
    EXPECT_EQ(static_cast<std::size_t>(failing), v["slowdowns"].size());
    EXPECT_NE(md.find("ci/bisect.py --server https://dash.example --run " + run), std::string::npos) << md;
  }
  // The series page places the SPIR-V change where main's changed (run slow), not at the branch's run before it.
  const json series = s.get("/api/v1/series?benchmark=lum/grid_stride_vec4/7680x4320/hot");
  const json one = s.get(cat("/api/v1/series/", std::to_string(series["series"][0]["id"].get<std::int64_t>())));
  std::vector<std::string> spirv_at;
  for (const auto& c : one["covariate_changes"])
    if (c["field"] == "spirv") spirv_at.push_back(c["run_id"]);
  EXPECT_EQ(spirv_at, std::vector<std::string>{"slow"}) << one["covariate_changes"].dump(1);
}

// Issue 52's H200 sitting, replayed (fixtures/real/README.md): three A/A runs of a fresh deployment, the slowing commit
// at the fourth, its revert at the fifth. With two changes a series, a kernel at 10x its neighbours' noise and two
// one-run slow modes took the tail to 370x and every floor to 100%: the 1.26x at 1080p cold passed. Its own noise now
// counts from two changes: it fails. The commit and its revert changed the kernel's SPIR-V: neither is the GPU's noise
// nor a swing, so the revert's run keeps its floors (they were 344%: blind to any slowdown under 4.4x).
TEST(GateE2E, AFreshH200sFourthRunFailsTheSlowCommitAndItsRevertPasses) {
  TempDir dir;
  TestServer s(dir.db("fresh.db"));
  int minute = 0;
  for (const char* r : {"a1", "a2", "a3", "slow", "revert"}) {
    const std::string commit = std::string(r) == "slow" ? "c4" : std::string(r) == "revert" ? "c5" : std::string("c") + r[1];
    post_ok(s, body(read_fixture(cat("real/h200-52-", r, ".json.gz")), r, commit, cat("2026-11-28T07:", std::to_string(10 + minute++), ":00Z")));
  }
  for (const char* r : {"a2", "a3"}) EXPECT_EQ(s.get(cat("/api/v1/runs/", r, "/verdict"))["verdict"], "pass") << r;
  const json v = s.get("/api/v1/runs/slow/verdict");
  EXPECT_EQ(v["verdict"], "fail");
  const std::string k = "lum/grid_stride_vec4/";
  for (const char* size : {"1920x1080/cold", "3840x2160/hot", "3840x2160/cold", "7680x4320/hot", "7680x4320/cold"})
    EXPECT_TRUE(has(v["slowdowns"], k + size)) << size << v["slowdowns"].dump(1);
  EXPECT_TRUE(has(v["slowdowns"], k + "1920x1080/hot") || has(v["suspects"], k + "1920x1080/hot"));
  for (const auto& e : v["slowdowns"]) EXPECT_EQ(e["benchmark"].get<std::string>().rfind(k, 0), 0u) << e.dump();
  // A suspect names its baseline as the verdict judged it: three runs are the previous runs, not a level.
  for (const auto& e : v["explanations"]) {
    if (e["finding"] != "suspect") continue;
    EXPECT_EQ(e["against"], "the previous 3 runs (median, to run a3)") << e["headline"];
  }
  const json& model = v["coverage"]["noise_model"];
  ASSERT_TRUE(model.is_object());
  EXPECT_LT(model["floor_median_pct"].get<double>(), 25) << v["coverage"]["line"];
  const json revert = s.get("/api/v1/runs/revert/verdict");
  EXPECT_EQ(revert["verdict"], "pass") << revert["slowdowns"].dump(1);
  EXPECT_LT(revert["coverage"]["noise_model"]["floor_median_pct"].get<double>(), 100) << revert["coverage"]["line"];
  EXPECT_LT(revert["coverage"]["swing_pct"].get<double>(), 20) << "the 2.9x slowdown and its revert are no swing";
}
