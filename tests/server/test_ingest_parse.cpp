// The ingest adapter (server/src/ingest_parse.*) on fixture documents: real shaderwatch-bench output
// and plain Google Benchmark output with its measurement decoration. No database.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixture_file.hpp"
#include "ingest_parse.hpp"
#include "shaderwatch/store.hpp"

using nlohmann::json;

namespace {

std::string wrapped(const json& doc, json run = {{"id", "r1"}, {"commit", "c1"}}) {
  return json{{"run", run}, {"benchmark", doc}}.dump();
}

}  // namespace

TEST(IngestParse, ShaderwatchBenchOutput) {
  // A --quick run on lavapipe: a measured benchmark (10 repetitions and 4 aggregates), the negative
  // control's expected outcome and an UNSUPPORTED kernel.
  const auto p = sw::parse_body(wrapped(swt::read_fixture("shaderwatch_bench_quick.json")), 64);
  ASSERT_EQ(p.rows.size(), 16u);
  EXPECT_EQ(p.device_name.rfind("llvmpipe", 0), 0u) << p.device_name;
  EXPECT_EQ(p.driver_name, "llvmpipe");
  EXPECT_NE(p.harness_revision, "unknown");
  int iterations = 0, errors = 0;
  for (const auto& r : p.rows) {
    if (r.error) {
      ++errors;
      const auto kind = shaderwatch::contract::row_kind(true, r.error_message);
      EXPECT_TRUE(kind == shaderwatch::contract::RowKind::expected_outcome ||
                  kind == shaderwatch::contract::RowKind::unsupported)
          << r.error_message;
      continue;
    }
    EXPECT_EQ(r.series_name, "lum/sequential_256/320x180/hot");
    if (r.run_type != "iteration") continue;
    ++iterations;
    ASSERT_TRUE(r.real_ns);
    EXPECT_GT(*r.real_ns, 1000) << "microseconds scaled to ns";
    const json counters = json::parse(r.counters);
    EXPECT_TRUE(counters.contains("p25_us") && counters.contains("p75_us") && counters.contains("median_us"));
  }
  EXPECT_EQ(iterations, 10);
  EXPECT_EQ(errors, 2);
  EXPECT_EQ(p.sha, sw::parse_body(wrapped(swt::read_fixture("shaderwatch_bench_quick.json")), 64).sha) << "content id is stable";
}

TEST(IngestParse, PlainGoogleBenchmarkWithDecoration) {
  const auto p = sw::parse_body(wrapped(swt::read_fixture("decorated_plain.json")), 64);
  ASSERT_EQ(p.rows.size(), 4u);
  for (const auto& r : p.rows) EXPECT_EQ(r.series_name, "scan/dec/1m/cold") << "iterations:/manual_time dropped";
  EXPECT_DOUBLE_EQ(*p.rows[0].real_ns, 12500);
  EXPECT_EQ(p.rows[3].aggregate_name, "cv");
  EXPECT_EQ(p.rows[3].aggregate_unit, "percentage");
  EXPECT_EQ(p.device_name, "unknown") << "no sw_ context: still accepted";
  EXPECT_EQ(p.started_at.rfind("2026-11-20T10:00:00", 0), 0u) << "started_at from the context's date";
}

TEST(IngestParse, BadInputNamesTheField) {
  json doc = swt::read_fixture("decorated_plain.json");
  doc["benchmarks"][1]["real_time"] = "fast";
  try {
    sw::parse_body(wrapped(doc), 64);
    FAIL() << "accepted a string time";
  } catch (const sw::ClientError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.field, "benchmark.benchmarks[1].real_time");
  }
  try {
    sw::parse_body(wrapped(swt::read_fixture("decorated_plain.json"), {{"id", "r1"}, {"commit", "c1"}, {"merge_base", "a b"}}), 64);
    FAIL() << "accepted a merge base with a space";
  } catch (const sw::ClientError& e) {
    EXPECT_EQ(e.field, "run.merge_base");
  }
}
