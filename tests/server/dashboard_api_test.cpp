// What the dashboard stands on: the embedded page with its CSP and ETags, and the API answers added for
// it (summary, correctness matrix, vocabulary, outcomes, quartiles, % of peak), against a real server on
// 127.0.0.1 with a real SQLite file and the real H200/H100 runs in fixtures/real.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <shaderwatch/result_contract.h>

#include "fixture_file.h"
#include "detection/analysis.h"
#include "ingest/benchmark_name.h"
#include "test_util.h"

using namespace swt;

namespace {

json real_run(const std::string& file) { return read_fixture("real/" + file); }

void post_real(const TestServer& s, const std::string& file, const std::string& id, const std::string& commit,
               const std::string& at) {
  auto r = s.post(wrap_doc(real_run(file), id, commit, at));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
}

}  // namespace

TEST(DashboardApi, ThePageIsEmbeddedWithACspAndContentHashEtags) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  auto c = s.client();
  auto page = c->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_NE(page->body.find("<script type=\"module\" src=\"/js/app.js\">"), std::string::npos);
  const std::string etag = page->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  auto again = c->Get("/", {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  for (const char* path : {"/js/app.js", "/js/pages/series.js", "/vendor/uplot.js"}) {
    auto js = c->Get(path);
    ASSERT_TRUE(js) << path;
    EXPECT_EQ(js->status, 200) << path;
    EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8") << path;
    EXPECT_NE(js->get_header_value("ETag"), etag) << path;
  }
  // Compressed with gzip even where the client prefers brotli (quality 11 in this httplib: seconds per MB).
  auto zipped = c->Get("/vendor/uplot.js", {{"Accept-Encoding", "gzip, deflate, br, zstd"}});
  ASSERT_TRUE(zipped);
  EXPECT_EQ(zipped->get_header_value("Content-Encoding"), "gzip");
  auto missing = c->Get("/js/nothing.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(json::parse(missing->body)["error"]["message"], "no such page or file");
  auto traversal = c->Get("/../CMakeLists.txt");
  ASSERT_TRUE(traversal);
  EXPECT_NE(traversal->status, 200);
}

// Reliability II, finding 9: gzip answers lacked Vary and reused the identity ETag (a cache could serve one for
// the other), and weak or listed tags in If-None-Match got the whole file again.
TEST(DashboardApi, EachEncodingHasItsOwnTagAndRevalidationTakesWeakAndListedTags) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  auto c = s.client();
  auto plain = c->Get("/vendor/uplot.js", {{"Accept-Encoding", "identity"}});
  auto zipped = c->Get("/vendor/uplot.js", {{"Accept-Encoding", "gzip, br"}});
  ASSERT_TRUE(plain && zipped);
  EXPECT_EQ(plain->get_header_value("Content-Encoding"), "");
  EXPECT_EQ(zipped->get_header_value("Content-Encoding"), "gzip");
  const std::string plain_tag = plain->get_header_value("ETag"), zipped_tag = zipped->get_header_value("ETag");
  EXPECT_NE(plain_tag, zipped_tag);
  for (const auto* r : {&plain, &zipped}) EXPECT_EQ((*r)->get_header_value("Vary"), "Accept-Encoding");
  EXPECT_EQ(c->Get("/api/v1/summary")->get_header_value("Vary"), "Accept-Encoding");
  const auto revalidate = [&](const std::string& encoding, const std::string& if_none_match) {
    return c->Get("/vendor/uplot.js", {{"Accept-Encoding", encoding}, {"If-None-Match", if_none_match}})->status;
  };
  EXPECT_EQ(revalidate("identity", plain_tag), 304);
  EXPECT_EQ(revalidate("identity", "W/" + plain_tag), 304);
  EXPECT_EQ(revalidate("identity", "\"other\", W/" + plain_tag + ", \"more\""), 304);
  EXPECT_EQ(revalidate("identity", "*"), 304);
  EXPECT_EQ(revalidate("gzip", zipped_tag), 304);
  EXPECT_EQ(revalidate("identity", zipped_tag), 200) << "the gzip tag is not the identity file's";
  EXPECT_EQ(revalidate("gzip", plain_tag), 200);
  EXPECT_EQ(revalidate("identity", "\"other\""), 200);
}

TEST(DashboardApi, WhereReadsNeedATokenThePageStillLoadsAndTheApiDoesNot) {
  TempDir dir;
  shaderwatch::ServerOptions o;
  o.read_token_required = true;
  TestServer s(dir.db("sw.db"), o);
  auto c = s.client();
  EXPECT_EQ(c->Get("/")->status, 200);
  EXPECT_EQ(c->Get("/js/api.js")->status, 200);
  EXPECT_EQ(c->Get("/api/v1/summary")->status, 401);
  EXPECT_EQ(c->Get("/api/v1/summary", {{"Authorization", "Bearer " + s.token}})->status, 200);
}

TEST(DashboardApi, SummaryAndMatrixOverRealRunsOfTwoGpus) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  post_real(s, "h200-run1.json", "h200-a", "c1", "2026-01-01T00:00:00Z");
  post_real(s, "h200-run2.json", "h200-b", "c2", "2026-01-01T01:00:00Z");
  post_real(s, "h100-run1.json", "h100-b", "c2", "2026-01-01T01:30:00Z");

  const auto sum = s.get("/api/v1/summary?runs=2");
  ASSERT_EQ(sum["gpus"].size(), 2u) << sum.dump(1);
  for (const auto& g : sum["gpus"]) EXPECT_EQ(g["drivers"].size(), 1u);
  ASSERT_EQ(sum["latest_runs"].size(), 2u);
  EXPECT_EQ(sum["latest_runs"][0]["id"], "h100-b");  // newest first
  EXPECT_EQ(sum["latest_runs"][1]["id"], "h200-b");
  EXPECT_EQ(sum["latest_runs"][0]["verdict"]["verdict"], "pass") << "the H100's first run: nothing to judge its times by";
  EXPECT_EQ(sum["latest_runs"][0]["verdict"]["failing_total"], 0);
  // The H200's second run made the 8K shared-memory blur 3.6x slower (706.8 us -> 2.538 ms): the single-run
  // gate fails it there, naming it alone.
  const json& h200 = sum["latest_runs"][1]["verdict"];
  EXPECT_EQ(h200["verdict"], "fail");
  EXPECT_EQ(h200["slowdowns"], 1);
  EXPECT_EQ(h200["failing"], json::array({"postfx/blur_shared_r16/7680x4320/cold"}));
  EXPECT_EQ(s.get("/api/v1/summary?runs=0", 400)["error"]["field"], "runs");

  // One column per (GPU, driver): the H200's latest run, and the H100's.
  const auto m = s.get("/api/v1/correctness");
  ASSERT_EQ(m["columns"].size(), 2u) << m["columns"].dump(1);
  std::set<std::string> runs;
  for (const auto& col : m["columns"]) runs.insert(col["run_id"]);
  EXPECT_EQ(runs, (std::set<std::string>{"h200-b", "h100-b"}));
  EXPECT_EQ(m["rows"].size(), 348u);  // every benchmark of the real runs, clean names
  EXPECT_GT(m["counts"]["pass"].get<int>(), 600);
  // The negative control's benchmarks (several sizes), expected outcomes on both GPUs.
  std::set<std::string> controls;
  const json doc = real_run("h200-run2.json");
  for (const auto& b : doc["benchmarks"])
    if (!shaderwatch::contract::expected_outcome_word(b.value("error_message", "")).empty()) controls.insert(b["name"]);
  ASSERT_FALSE(controls.empty());
  const int expected = m["counts"].value("xfail", 0) + m["counts"].value("xpass", 0);
  EXPECT_EQ(expected, static_cast<int>(2 * controls.size())) << m["counts"].dump();
  EXPECT_FALSE(m["counts"].contains("fail"));
  for (const auto& row : m["rows"]) {
    for (const auto& cell : row["cells"]) {
      ASSERT_FALSE(cell.is_null()) << row.dump();
      if (cell["outcome"] == "pass") {
        EXPECT_TRUE(cell["series_id"].is_number()) << row.dump();
      }
    }
  }

  // The run's table: quartiles, % of peak and err/bound per benchmark, the negative control apart.
  const auto run = s.get("/api/v1/runs/h200-b");
  ASSERT_FALSE(run["points"].empty());
  for (const auto& p : run["points"]) {
    ASSERT_TRUE(p["p25_ns"].is_number()) << p.dump();
    EXPECT_LE(p["p25_ns"].get<double>(), p["value_ns"].get<double>() * 1.0001) << p.dump();
    EXPECT_GE(p["p75_ns"].get<double>(), p["value_ns"].get<double>() * 0.9999) << p.dump();
    EXPECT_TRUE(p["pct_of_copy_peak"].is_number()) << p.dump() << ": a run from before the roofline";
    EXPECT_TRUE(p["pct_of_roofline"].is_null()) << p.dump();
    EXPECT_EQ(p["outcome"], "pass");
  }
  ASSERT_EQ(run["not_measured"].size(), controls.size()) << run["not_measured"].dump(1);
  for (const auto& p : run["not_measured"]) EXPECT_TRUE(p["outcome"] == "xfail" || p["outcome"] == "xpass") << p.dump();

  // The series carries each run's band; rankings carry % of peak.
  const auto sid = run["points"][0]["series_id"].get<int>();
  const auto series = s.get("/api/v1/series/" + std::to_string(sid));
  ASSERT_EQ(series["points"].size(), 2u);
  for (const auto& p : series["points"]) EXPECT_TRUE(p["p75_ns"].is_number()) << p.dump();
  const auto rank = s.get("/api/v1/rankings?commit=c2&family=lum");
  ASSERT_FALSE(rank["groups"].empty());
  EXPECT_EQ(rank["groups"][0]["by_gpu"].size(), 2u);
  EXPECT_TRUE(rank["groups"][0]["by_gpu"][0]["ranking"][0]["pct_of_copy_peak"].is_number()) << rank["groups"][0].dump();
}

TEST(DashboardApi, OutcomesOfEveryKindOfRow) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  ASSERT_EQ(s.post(wrap(run_sample_bench("SW_SAMPLE_UNSUPPORTED=1"), "u-1", "c1", "2026-01-01T00:00:00Z"))->status, 201);
  ASSERT_EQ(s.post(wrap(run_sample_bench("SW_SAMPLE_NEGATIVE=1"), "n-1", "c2", "2026-01-01T01:00:00Z"))->status, 201);
  ASSERT_EQ(s.post(wrap(run_sample_bench("SW_SAMPLE_FAIL=1"), "f-1", "c3", "2026-01-01T02:00:00Z"))->status, 201);
  std::map<std::string, std::set<std::string>> seen;  // run -> outcomes of its rows
  for (const char* id : {"u-1", "n-1", "f-1"}) {
    const json rows = s.get(cat("/api/v1/runs/", id, "/results?run_type=iteration"));
    for (const auto& row : rows["results"]) seen[id].insert(row["outcome"].get<std::string>());
  }
  EXPECT_TRUE(seen["u-1"].count("unsupported")) << json(seen).dump();
  EXPECT_TRUE(seen["n-1"].count("xfail")) << json(seen).dump();
  EXPECT_TRUE(seen["f-1"].count("fail")) << json(seen).dump();
  // The matrix has one column per (GPU, driver): the latest run, f-1, with its failure.
  const auto m = s.get("/api/v1/correctness");
  ASSERT_EQ(m["columns"].size(), 1u);
  EXPECT_EQ(m["columns"][0]["run_id"], "f-1");
  EXPECT_GE(m["counts"].value("fail", 0), 1) << m["counts"].dump();
  const auto sum = s.get("/api/v1/summary");
  EXPECT_EQ(sum["latest_runs"][0]["verdict"]["verdict"], "fail");
  EXPECT_GE(sum["latest_runs"][0]["verdict"]["failing"].size(), 1u);
}

TEST(DashboardApi, VocabularyAndTheOpenStateFilter) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const auto v = s.get("/api/v1/vocabulary");
  EXPECT_EQ(v["alert_states"].size(), 5u);
  EXPECT_NE(std::find(v["alert_kinds"].begin(), v["alert_kinds"].end(), "regression"), v["alert_kinds"].end());
  EXPECT_NE(std::find(v["causes"].begin(), v["causes"].end(), "machine"), v["causes"].end());
  EXPECT_EQ(v["main_branch"], "main");
  // What the dashboard reads instead of spelling words by hand: every kind in one of the three groups, with a tone.
  EXPECT_EQ(v["open_alert_states"], json::array({"new", "acknowledged"}));
  EXPECT_EQ(v["correctness_alert_kinds"], json::array({"correctness_regression", "correctness_failure"}));
  EXPECT_EQ(v["spread_alert_kinds"], json::array({"noise"}));
  EXPECT_EQ(v["level_alert_kinds"].size() + v["correctness_alert_kinds"].size() + v["spread_alert_kinds"].size(),
            v["alert_kinds"].size());
  for (const auto& k : v["alert_kinds"]) EXPECT_TRUE(v["alert_kind_tones"].contains(k.get<std::string>())) << k;
  EXPECT_EQ(v["alert_kind_tones"]["improvement"], "better");
  EXPECT_EQ(s.get("/api/v1/vocabulary?x=1", 400)["error"]["message"], "takes no query parameters");
  EXPECT_EQ(s.get("/api/v1/alerts?state=open")["total"], 0);
  EXPECT_EQ(s.get("/api/v1/alerts?state=bogus", 400)["error"]["field"], "state");
}

// Issue 26 item 4 on the H200 and H100 runs of 1a5ab89: % of roofline (never over 100 beyond noise), flips
// only between variants of one operation (the real data has flips across operations that would otherwise
// show), and a fastest GPU only beyond both series' noise.
TEST(DashboardApi, GpuComparisonRanksOnlyOneOperationAndCallsTiesOnRealRuns) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  post_real(s, "h200-1a5ab89.json.gz", "h200", "1a5ab89", "2026-11-25T03:40:00Z");
  post_real(s, "h100-1a5ab89.json.gz", "h100", "1a5ab89", "2026-11-25T03:45:00Z");
  const auto rank = s.get("/api/v1/rankings?commit=1a5ab89");
  ASSERT_FALSE(rank["groups"].empty());
  int cross_operation = 0, flips = 0, ties = 0, named = 0;
  double largest = 0;
  for (const auto& g : rank["groups"]) {
    ASSERT_EQ(g["by_gpu"].size(), 2u) << g["config"];
    std::map<std::string, std::string> operation;
    std::map<std::size_t, shaderwatch::analysis::GpuVariants> per_gpu;
    for (std::size_t gi = 0; gi < 2; ++gi) {
      for (const auto& r : g["by_gpu"][gi]["ranking"]) {
        operation[r["variant"]] = r["operation"];
        per_gpu[gi][r["variant"]] = {r["value_ns"].get<double>(), r["noise_rel"].get<double>()};
        EXPECT_TRUE(r["pct_of_copy_peak"].is_null()) << r.dump();
        if (r["pct_of_roofline"].is_number()) largest = std::max(largest, r["pct_of_roofline"].get<double>());
      }
    }
    for (const auto& f : shaderwatch::analysis::flips(per_gpu)) cross_operation += operation[f.faster_on_a] != operation[f.faster_on_b];
    for (const auto& f : g["flips"]) {
      ++flips;
      EXPECT_EQ(operation[f["faster_on_a"]], operation[f["faster_on_b"]]) << f.dump();
      EXPECT_EQ(f["operation"], operation[f["faster_on_a"]]) << f.dump();
    }
    for (const auto& o : g["gpu_order"]) {
      ASSERT_EQ(o["fastest_first"].size(), 2u) << o.dump();
      const double a = o["fastest_first"][0]["value_ns"], b = o["fastest_first"][1]["value_ns"];
      if (o["tie"].get<bool>()) {
        ++ties;
        EXPECT_TRUE(o["fastest"].is_null()) << o.dump();
      } else {
        ++named;
        EXPECT_EQ(o["fastest"], o["fastest_first"][0]["gpu"]) << o.dump();
        EXPECT_GE(b / a, 1 + shaderwatch::analysis::kMinFlipRel) << o.dump();
      }
    }
  }
  EXPECT_GT(cross_operation, 0) << "the data has no flip across operations: the test shows nothing";
  EXPECT_GT(ties, 0);
  EXPECT_GT(named, 0);
  EXPECT_GT(largest, 90.0);
  EXPECT_LE(largest, 100.5) << "% of roofline beyond measurement noise";
  std::printf("rankings over %zu groups: %d flips within an operation, %d across operations dropped; %d ties, %d "
              "named fastest; largest %% of roofline %.1f\n", rank["groups"].size(), flips, cross_operation, ties, named, largest);
}

// Issue 53: what a variant computes comes with its document (the compiled section's "operation", contract format 3),
// so a kernel the server never heard of ranks with its own kind: here every kernel of the same real runs says it
// computes one operation, and every flip between any two variants is shown. The runs above, which say nothing, are
// read by format 2's catalog.
TEST(DashboardApi, TheRankingsCompareTheVariantsADocumentSaysComputeOneOperation) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  for (const auto& [file, id, at] : {std::tuple{"h200-1a5ab89.json.gz", "h200", "2026-11-25T03:40:00Z"},
                                     std::tuple{"h100-1a5ab89.json.gz", "h100", "2026-11-25T03:45:00Z"}}) {
    json doc = real_run(file);
    json compiled = json::object();
    for (const auto& row : doc["benchmarks"]) {
      const auto parts = shaderwatch::split_name(row["run_name"].get<std::string>());
      compiled[parts.kernel()] = {{"spirv", "0123abcd"}, {"input", "test@1"}, {"operation", "one operation"},
                                  {"pipelines", json::array()}};
    }
    doc[shaderwatch::contract::kCompiledSection] = compiled;
    auto r = s.post(wrap_doc(doc, id, "1a5ab89", at));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201) << r->body;
  }
  const auto rank = s.get("/api/v1/rankings?commit=1a5ab89");
  std::size_t flips = 0, all_flips = 0;
  for (const auto& g : rank["groups"]) {
    std::map<std::size_t, shaderwatch::analysis::GpuVariants> per_gpu;
    for (std::size_t gi = 0; gi < g["by_gpu"].size(); ++gi)
      for (const auto& r : g["by_gpu"][gi]["ranking"]) {
        EXPECT_EQ(r["operation"], "one operation") << r.dump();
        per_gpu[gi][r["variant"]] = {r["value_ns"].get<double>(), r["noise_rel"].get<double>()};
      }
    flips += g["flips"].size();
    all_flips += shaderwatch::analysis::flips(per_gpu).size();
  }
  EXPECT_GT(flips, 0u);
  EXPECT_EQ(flips, all_flips) << "every flip is within the one operation the documents named";
}

// Issue 26 item 3: a partial run (16K only) at the same commit adds its sizes to the GPU comparison; it
// used to stand for the GPU at that commit and leave every other size empty.
TEST(DashboardApi, APartialRunAtACommitAddsToTheFullOneInTheGpuComparison) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  post_real(s, "h200-1a5ab89.json.gz", "h200-full", "c1", "2026-11-25T03:40:00Z");
  post_real(s, "h200-50e20fd-lum16k.json.gz", "h200-16k", "c1", "2026-11-25T04:00:00Z");
  const auto rank = s.get("/api/v1/rankings?commit=c1&family=lum");
  std::map<std::string, std::size_t> variants;  // config -> variants ranked on the H200
  for (const auto& g : rank["groups"]) variants[g["config"]] = g["by_gpu"][0]["ranking"].size();
  EXPECT_EQ(variants["1920x1080/hot"], 16u) << json(variants).dump();
  EXPECT_GT(variants.size(), 8u) << "the full run's sizes and the partial run's 16K: " << json(variants).dump();
  EXPECT_EQ(rank["groups"][0]["by_gpu"][0]["run_id"], "h200-16k") << "the newest run at the commit is named";
}
