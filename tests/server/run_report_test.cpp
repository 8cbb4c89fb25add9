// The run's CI report (JUnit XML, markdown summary, CSV): the pure renderers, then the endpoints on a real
// server over a real SQLite file.
#include <gtest/gtest.h>

#include <cmath>


#include <shaderwatch/result_contract.h>

#include "render/escape.h"
#include "render/run_report.h"
#include "test_util.h"

namespace {

using nlohmann::json;
using shaderwatch::report::RunReportInput;
using shaderwatch::report::xml_text;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

using shaderwatch::RowStatus;

shaderwatch::RunPointEntry point(const std::string& name, RowStatus outcome, double ns, const std::string& msg = "") {
  shaderwatch::RunPointEntry p;
  p.benchmark = name;
  if (ns > 0) p.value_ns = ns;
  p.label = "spirv:abc stop:stable-median";
  p.error_message = msg;
  p.counters = shaderwatch::BenchmarkCounters{};
  p.counters->err_bound_ratio = 0.25;
  p.counters->outcome = outcome;
  return p;
}

shaderwatch::Alert regression_alert(const std::string& name) {
  shaderwatch::Alert a;
  a.id = 7;
  a.benchmark = name;
  a.state = "new";
  a.before_ns = 1000.0;
  a.after_ns = 1100.0;
  a.delta_pct = 10.0;
  a.noise_pct = 0.8;
  a.p_value = 1e-5;
  a.cause = "commit";
  a.run_id = "r-9";
  a.attribution = shaderwatch::AlertAttribution{.cause = "commit", .summary = "only the commit changed"};
  a.attribution_document = shaderwatch::stored_text(*a.attribution);
  return a;
}

// An explanation as the verdict builds them (queries/verdict_explanation.cpp, tested on a real store in
// explanation_test.cpp); the renderers only render it.
shaderwatch::Explanation explained(const std::string& benchmark, const std::string& finding, bool failing,
                                   const std::string& headline, double before = NAN, double after = NAN) {
  shaderwatch::Explanation e;
  e.benchmark = benchmark;
  e.series_id = 40;
  e.finding = finding;
  e.failing = failing;
  e.before_ns = before;
  e.after_ns = after;
  e.change_pct = std::isfinite(before) ? 100 * (after / before - 1) : NAN;
  e.floor_pct = std::isfinite(before) ? 2.5 : NAN;
  e.against = "its level (median of 12 runs, to run r-9)";
  e.headline = headline;
  e.evidence = "changed since run r-9: SPIR-V de183201 -> a1cc297d, CS Register Count 23 -> 25; same driver and runner";
  e.run_id = "r-10";
  e.baseline_run = "r-9";
  e.good_commit = "c9";
  e.bad_commit = "abc";
  return e;
}

// Every kind of row a run can hold.
RunReportInput every_outcome() {
  RunReportInput in;
  in.dashboard = "https://sw.example";
  in.run.run.id = "r-10";
  in.run.run.commit = "abc";
  in.run.run.branch = "main";
  in.run.run.runner = "gpu-1";
  in.run.run.gpu.name = "NVIDIA H200";
  in.run.run.driver.name = "NVIDIA";
  in.run.run.driver.info = "580.1";
  in.run.points = {point("lum/a_256/1920x1080/hot", RowStatus::Pass, 2e5),
                   point("lum/a_256/1920x1080/cold", RowStatus::Fail, 0, "FAIL: wrong <sum> & \x01 bound"),
                   point("lum/b_256/1920x1080/hot", RowStatus::Pass, 3e5),
                   point("lum/c_256/1920x1080/hot", RowStatus::Pass, 4e5)};
  in.run.not_measured = {{"lum/neg_256/1920x1080/hot", RowStatus::Xfail, "EXPECTED: XFAIL, race observed"},
                         {"lum/neg_256/1920x1080/cold", RowStatus::Xpass, "EXPECTED: XPASS, no race"},
                         {"lum/a_256/7680x4320/hot", RowStatus::Unsupported, "UNSUPPORTED: 8K over 128 MiB"}};
  in.verdict.run_id = "r-10";
  in.verdict.fail = true;
  in.verdict.correctness = {{"lum/a_256/1920x1080/cold", 0, shaderwatch::detect::AlertKind::CorrectnessFailure,
                             "FAIL: wrong <sum> & \x01 bound"}};
  in.verdict.regressions = {regression_alert("lum/b_256/1920x1080/hot")};
  in.verdict.suspects = {{"lum/c_256/1920x1080/hot", 0, 3.6e5, 4e5, 11.1, 0, 4.2}};
  in.verdict.skipped = {{"lum/a_256/7680x4320/hot", "8K over 128 MiB"}};
  in.verdict.explanations = {
      explained("lum/a_256/1920x1080/cold", "correctness_failure", true, "correctness_failure: FAIL: wrong <sum> & \x01 bound"),
      explained("lum/b_256/1920x1080/hot", "regression", true,
                "regression +10.0% (1 us -> 1.1 us) since run r-9, cause commit: only the commit changed", 1000, 1100),
      explained("lum/c_256/1920x1080/hot", "suspect", false,
                "suspect +11.1% (360 us -> 400 us) against its level, under the gate's floor +12.0% (z 4.2): not a failure "
                "until later runs confirm it", 3.6e5, 4e5)};
  in.verdict.explanations[1].alert_id = 7;
  return in;
}

TEST(RunReport, JunitHasOneTestcasePerBenchmarkAndMarksEachOutcome) {
  const auto in = every_outcome();
  const std::string x = shaderwatch::report::junit_xml(in);
  EXPECT_EQ(count(x, "<testcase "), 7u);
  EXPECT_NE(x.find("<testsuites name=\"shaderwatch\" tests=\"7\" failures=\"2\" errors=\"0\" skipped=\"1\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<testsuite name=\"NVIDIA H200 / NVIDIA 580.1\""), std::string::npos);
  // No `time`: the run records no duration per benchmark, and its median is none.
  EXPECT_NE(x.find("<testcase classname=\"lum/a_256\" name=\"1920x1080/hot\"/>"), std::string::npos) << x;
  EXPECT_EQ(x.find("time="), std::string::npos) << x;
  // The explanation's headline is the failure's `message` (what CI test views show); its body is the explanation
  // with the next steps (GitLab reads only the body), escaped, and a control character XML cannot hold is dropped.
  EXPECT_NE(x.find("<failure type=\"correctness_failure\" message=\"correctness_failure: FAIL: wrong &lt;sum&gt; &amp;  bound\">"
                   "correctness_failure: FAIL: wrong &lt;sum&gt; &amp;  bound\n" + xml_text(in.verdict.explanations[0].evidence)),
            std::string::npos)
      << x;
  EXPECT_EQ(x.find('\x01'), std::string::npos);
  EXPECT_NE(x.find("<failure type=\"regression\" message=\"" + xml_text(in.verdict.explanations[1].headline) + "\">"), std::string::npos) << x;
  EXPECT_NE(x.find("alert: https://sw.example/#/alerts?id=7\n"), std::string::npos) << x;
  EXPECT_NE(x.find("chart: https://sw.example/#/series/40\n"), std::string::npos) << x;
  EXPECT_NE(x.find("compare with run r-9: https://sw.example/#/compare?base=r-9&amp;contender=r-10\n"), std::string::npos) << x;
  EXPECT_NE(x.find(xml_text("measure it on your GPU: shaderwatch-bench --filter '^lum/b_256$' --sizes 1920x1080\n")),
            std::string::npos) << x;
  EXPECT_NE(x.find(xml_text("find the commit: ci/bisect.py --server https://sw.example --run r-10 --benchmark "
                            "'lum/b_256/1920x1080/hot'\n")),
            std::string::npos) << x;
  EXPECT_NE(x.find("<skipped message=\"UNSUPPORTED: 8K over 128 MiB\">"), std::string::npos);
  EXPECT_NE(x.find("expected failure (XFAIL)"), std::string::npos);
  EXPECT_NE(x.find("expected failure did not fail this time (XPASS)"), std::string::npos);
  EXPECT_NE(x.find("<system-out>" + xml_text(in.verdict.explanations[2].headline)), std::string::npos) << x;
  EXPECT_NE(x.find("<property name=\"run_url\" value=\"https://sw.example/#/runs/r-10\"/>"), std::string::npos);
  // Expected failures and suspects pass: only the two failures are <failure>.
  EXPECT_EQ(count(x, "<failure "), 2u);
}

TEST(RunReport, SummaryHasTheVerdictLineTablesAndMarker) {
  auto in = every_outcome();
  shaderwatch::Alert improvement;
  improvement.benchmark = "lum/d_256/1920x1080/hot";
  improvement.before_ns = 2e5;
  improvement.after_ns = 1.8e5;
  improvement.delta_pct = -10.0;
  improvement.cause = "driver";
  in.improvements = {improvement};
  const std::string md = shaderwatch::report::summary_markdown(in);
  EXPECT_EQ(md.rfind(shaderwatch::report::summary_marker("r-10") + "\n", 0), 0u) << md;
  EXPECT_NE(md.find("❌ shaderwatch: fail (1 correctness failure, 1 regression)"), std::string::npos) << md;
  // Each explanation a row: the chart link, the finding, before -> after, against what, the threshold, what changed.
  EXPECT_NE(md.find("#### What failed (2)"), std::string::npos) << md;
  const auto& regression = in.verdict.explanations[1];
  EXPECT_NE(md.find("| [`lum/b_256/1920x1080/hot`](https://sw.example/#/series/40) | " + shaderwatch::report::md_text(regression.headline) +
                    " | " + shaderwatch::report::md_text(regression.evidence) + " |\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("#### Next steps"), std::string::npos);
  EXPECT_NE(md.find("- Every benchmark of this run beside run r-9: [compare](https://sw.example/#/compare?base=r-9&contender=r-10)"),
            std::string::npos) << md;
  EXPECT_NE(md.find("- Measure them on your GPU: `shaderwatch-bench --filter '^(lum/a_256|lum/b_256)$' --sizes 1920x1080`"),
            std::string::npos) << md;
  EXPECT_NE(md.find("#### Not failing yet (1)"), std::string::npos);
  EXPECT_NE(md.find("<details><summary>Improvements (1)</summary>"), std::string::npos);
  EXPECT_NE(md.find("<details><summary>Unsupported on this device (1)</summary>"), std::string::npos);
  // A message cannot break the table or inject HTML.
  EXPECT_NE(md.find("FAIL: wrong \\<sum\\>"), std::string::npos) << md;
  EXPECT_EQ(md.find("Cut to fit"), std::string::npos);
}

TEST(RunReport, SummaryNamesANoisyRunnerUnderTheHistoryLine) {
  auto in = every_outcome();
  EXPECT_EQ(shaderwatch::report::summary_markdown(in).find("runner noisy"), std::string::npos) << "none: no line";
  shaderwatch::NoiseNote n;
  n.benchmarks = 300;
  n.ratio = 4.1;
  n.since_run = "r-3";
  n.cause = "machine";
  n.line = "runner noisy: 300 benchmarks' spread x4.1 since run r-3 (cause: machine)";
  in.verdict.noise = n;
  const std::string md = shaderwatch::report::summary_markdown(in);
  const auto at = md.find("runner noisy: 300 benchmarks' spread x4.1 since run r-3 (cause: machine)");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_LT(md.find(in.verdict.coverage.line.empty() ? "benchmarks," : in.verdict.coverage.line), at);
}

TEST(RunReport, SummaryIsCutWithALinkPastItsLimit) {
  auto in = every_outcome();
  for (int i = 0; i < 2000; ++i)
    in.verdict.explanations.push_back(explained("lum/x/" + std::to_string(i), "suspect", false, std::string(100, 'e')));
  const std::string md = shaderwatch::report::summary_markdown(in, 8000);
  EXPECT_LE(md.size(), 8000u);
  EXPECT_NE(md.find("_Cut to fit a comment: the whole run is at [the dashboard](https://sw.example/#/runs/r-10)._"),
            std::string::npos);
  EXPECT_NE(md.find("#### What failed (2)"), std::string::npos);  // the most important table comes first
}

// results.csv: each row's outcome as the bench said it, and what the verdict found on it (its baseline, the change and
// the threshold it crossed), the verdict's findings first: the rows a reader looks for are on top.
TEST(RunReport, CsvQuotesAndSaysTheVerdictsFindingPerRow) {
  auto in = every_outcome();
  in.run.points[0].label = "a,\"b\"";
  shaderwatch::SlowdownEntry slow;
  slow.benchmark = "lum/a_256/1920x1080/hot";
  slow.baseline_ns = 1.6e5;
  slow.value_ns = 2e5;
  slow.delta_pct = 25;
  slow.floor_pct = 9.5;
  in.verdict.slowdowns = {slow};
  in.verdict.explanations.insert(in.verdict.explanations.begin() + 1,
                                 explained(slow.benchmark, "slowdown", true, "slowdown 1.25x (160 us -> 200 us)", 1.6e5, 2e5));
  const std::string csv = shaderwatch::report::results_csv(in);
  EXPECT_EQ(csv.rfind("name,status,verdict,median_us,baseline_us,change_pct,floor_pct,err_bound_ratio,label,baseline_run,"
                      "explanation\n", 0), 0u);
  EXPECT_EQ(count(csv, "\n"), 8u);
  EXPECT_EQ(csv.find("REGRESSION"), std::string::npos) << "the status is the bench's outcome; the verdict says the rest";
  // The explanation's numbers, then its headline and what changed in one field.
  EXPECT_NE(csv.find("lum/a_256/1920x1080/hot,PASS,slowdown,200.000,160.000,25.00,2.50,0.25,\"a,\"\"b\"\"\",r-9," +
                     shaderwatch::report::csv_field("slowdown 1.25x (160 us -> 200 us); " + in.verdict.explanations[1].evidence) +
                     "\n"),
            std::string::npos) << csv;
  EXPECT_NE(csv.find("lum/b_256/1920x1080/hot,PASS,regression,300.000,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("lum/c_256/1920x1080/hot,PASS,suspect,400.000,360.000,11.11,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("lum/a_256/1920x1080/cold,FAIL,correctness_failure,,,,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("lum/a_256/7680x4320/hot,UNSUPPORTED,,,,,,"), std::string::npos) << csv;
  // Failing findings first (in the run's order), then suspects, then the rest.
  const auto at = [&](const std::string& name) { return csv.find("\n" + name + ","); };
  EXPECT_LT(at("lum/a_256/1920x1080/cold"), at("lum/c_256/1920x1080/hot"));
  EXPECT_LT(at("lum/b_256/1920x1080/hot"), at("lum/c_256/1920x1080/hot"));
  EXPECT_LT(at("lum/c_256/1920x1080/hot"), at("lum/a_256/7680x4320/hot"));
}

// Reliability II, findings 4-6: what a client sent is shown as text by the program each report is for.
TEST(RunReport, ClientTextIsNeitherMarkupNorAFormulaNorInvalidXml) {
  auto in = every_outcome();
  in.run.run.commit = "x`![t](https://evil.example/t.png)`x";
  in.run.run.gpu.name = "GPU [x](https://evil.example) **bold** <b>";
  in.verdict.explanations[0].headline = "FAIL: [click](https://evil.example) ![i](https://evil.example/i.png) | `code`";
  const std::string md = shaderwatch::report::summary_markdown(in);
  // The commit is one code span the backticks inside cannot close: fenced by two.
  EXPECT_NE(md.find("commit ``x`![t](https://evil.example/t.png)`x`` on"), std::string::npos) << md;
  EXPECT_NE(md.find("GPU \\[x\\](https://evil.example) \\*\\*bold\\*\\* \\<b\\>"), std::string::npos) << md;
  EXPECT_NE(md.find("FAIL: \\[click\\](https://evil.example) \\!\\[i\\](https://evil.example/i.png) \\| \\`code\\`"),
            std::string::npos) << md;

  in.run.points[0].benchmark = "=HYPERLINK(\"https://evil.example\",\"x\")/v/1/hot";
  in.run.points[1].label = "@SUM(1+1)";
  in.run.points[2].label = "-2+3";
  const std::string csv = shaderwatch::report::results_csv(in);
  EXPECT_NE(csv.find("\n\"'=HYPERLINK(\"\"https://evil.example\"\",\"\"x\"\")/v/1/hot\","), std::string::npos) << csv;
  EXPECT_NE(csv.find(",\"'@SUM(1+1)\","), std::string::npos) << csv;
  EXPECT_NE(csv.find(",\"'-2+3\","), std::string::npos) << csv;

  in.run.points[1].error_message = in.verdict.explanations[0].headline = std::string("bad \xEF\xBF\xBE and \xEF\xBF\xBF, \xED\xA0\x80 half a pair, ") +
                                            "\xC3 cut, \xC0\xAF overlong, \x01 control, kept: \xC3\xA9 \xF0\x9F\x98\x80";
  const std::string x = shaderwatch::report::junit_xml(in);
  EXPECT_EQ(x.find("\xEF\xBF\xBE"), std::string::npos);
  EXPECT_EQ(x.find("\xEF\xBF\xBF"), std::string::npos);
  EXPECT_EQ(x.find("\xED\xA0\x80"), std::string::npos);
  EXPECT_EQ(x.find('\x01'), std::string::npos);
  EXPECT_NE(x.find("bad  and ,  half a pair, \xEF\xBF\xBD cut, \xEF\xBF\xBD\xEF\xBF\xBD overlong,  control, "
                   "kept: \xC3\xA9 \xF0\x9F\x98\x80"), std::string::npos) << x;
}

TEST(RunReport, EndpointsRenderAStoredRunWithAFailure) {
  swt::TempDir dir;
  swt::TestServer srv(dir.db("report.db"));
  json doc = swt::make_doc({}, {{"fam/var/1/hot", {1000, 1010, 990}}, {"fam/var/1/cold", {2000, 2010, 1990}}}, false);
  for (auto& row : doc["benchmarks"])
    if (row["name"] == "fam/var/1/cold") {
      for (const char* k : {"real_time", "cpu_time", "iterations", "time_unit", "items_per_second"}) row.erase(k);
      row["error_occurred"] = true;
      row["error_message"] = "FAIL: wrong sum";
    }
  ASSERT_EQ(srv.post(swt::wrap(doc.dump(), "run-f", "c1"))->status, 201);
  auto c = srv.client();
  auto junit = c->Get("/api/v1/runs/run-f/junit.xml?dashboard=https%3A%2F%2Fdash.example%2F");
  ASSERT_TRUE(junit);
  EXPECT_EQ(junit->status, 200);
  EXPECT_EQ(junit->get_header_value("Content-Type"), "application/xml; charset=utf-8");
  EXPECT_EQ(count(junit->body, "<testcase "), 2u);
  EXPECT_NE(junit->body.find("<failure type=\"correctness_failure\" message=\"correctness_failure: FAIL: wrong sum"),
            std::string::npos)
      << junit->body;
  EXPECT_NE(junit->body.find("https://dash.example/#/runs/run-f"), std::string::npos);
  auto md = c->Get("/api/v1/runs/run-f/summary.md");
  ASSERT_TRUE(md);
  EXPECT_EQ(md->status, 200);
  EXPECT_NE(md->body.find("❌ shaderwatch: fail (1 correctness failure)"), std::string::npos) << md->body;
  // Without ?dashboard= the links lead back to this server as the client reached it.
  EXPECT_NE(md->body.find("(http://127.0.0.1:" + std::to_string(srv.port) + "/#/runs/run-f)"), std::string::npos);
  auto csv = c->Get("/api/v1/runs/run-f/results.csv");
  ASSERT_TRUE(csv);
  EXPECT_NE(csv->body.find("fam/var/1/cold,FAIL,"), std::string::npos);
  EXPECT_NE(csv->body.find("fam/var/1/hot,PASS,,1.000,"), std::string::npos) << csv->body;

  auto bad = c->Get("/api/v1/runs/run-f/summary.md?dashboard=javascript:alert(1)");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("\"field\":\"dashboard\""), std::string::npos);
  auto unknown = c->Get("/api/v1/runs/no-such-run/junit.xml");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto extra = c->Get("/api/v1/runs/run-f/results.csv?x=1");
  ASSERT_TRUE(extra);
  EXPECT_EQ(extra->status, 400);
}

}  // namespace

namespace {

// Rows an expectations entry accounted for, as shaderwatch-bench writes them: a skip, an expected failure
// of a runner's own entry, and a flake (measured, with the checks that failed before one passed).
TEST(RunReport, ExpectationsEntriesAreSkippedExpectedOrFlakyNeverFailures) {
  swt::TempDir dir;
  swt::TestServer srv(dir.db("expect.db"));
  json doc = swt::make_doc({}, {{"fam/var/1/hot", {1000, 1010, 990}}, {"fam/var/1/cold", {2000, 2010, 1990}},
                                {"fam/other/1/hot", {500, 505, 495}}, {"fam/flaky/1/hot", {700, 705, 695}}},
                           false);
  const std::map<std::string, std::string> errors{
      {"fam/var/1/cold", shaderwatch::contract::expected_outcome_message("lavapipe slow", "SKIP", "not run on this device: bug 9")},
      {"fam/other/1/hot", shaderwatch::contract::expected_outcome_message("driver 580 bug", "XFAIL", "element 3: expected 1, got 2")}};
  for (auto& row : doc["benchmarks"]) {
    const std::string name = row["name"];
    if (name == "fam/flaky/1/hot") row[shaderwatch::contract::kCheckRetriesCounter] = 2;
    if (!errors.count(name)) continue;
    for (const char* k : {"real_time", "cpu_time", "iterations", "time_unit", "items_per_second"}) row.erase(k);
    row["error_occurred"] = true;
    row["error_message"] = errors.at(name);
  }
  ASSERT_EQ(srv.post(swt::wrap(doc.dump(), "run-e", "c1"))->status, 201);
  auto c = srv.client();
  auto verdict = c->Get("/api/v1/runs/run-e/verdict");
  ASSERT_TRUE(verdict);
  const json v = json::parse(verdict->body);
  EXPECT_EQ(v["verdict"], "pass") << v.dump();
  EXPECT_TRUE(v["correctness"].empty()) << v.dump();
  ASSERT_EQ(v["skipped"].size(), 1u) << v.dump();
  EXPECT_EQ(v["skipped"][0]["benchmark"], "fam/var/1/cold");
  EXPECT_NE(v["skipped"][0]["reason"].get<std::string>().find("bug 9"), std::string::npos);

  auto junit = c->Get("/api/v1/runs/run-e/junit.xml");
  ASSERT_TRUE(junit);
  const std::string& x = junit->body;
  EXPECT_EQ(count(x, "<testcase "), 4u) << x;
  EXPECT_EQ(count(x, "<failure "), 0u) << x;
  EXPECT_NE(x.find("<skipped message=\"EXPECTED (lavapipe slow): SKIP, not run on this device: bug 9\">"), std::string::npos) << x;
  EXPECT_NE(x.find("expected failure (XFAIL): EXPECTED (driver 580 bug): XFAIL"), std::string::npos) << x;
  EXPECT_NE(x.find("flaky: 2 failed checks, then one passed"), std::string::npos) << x;
  auto csv = c->Get("/api/v1/runs/run-e/results.csv");
  ASSERT_TRUE(csv);
  EXPECT_NE(csv->body.find("fam/var/1/cold,SKIP,"), std::string::npos) << csv->body;
  EXPECT_NE(csv->body.find("fam/other/1/hot,XFAIL,"), std::string::npos) << csv->body;
  EXPECT_NE(csv->body.find("fam/flaky/1/hot,FLAKE,"), std::string::npos) << csv->body;
  EXPECT_NE(csv->body.find("fam/var/1/hot,PASS,"), std::string::npos) << csv->body;
}

}  // namespace
