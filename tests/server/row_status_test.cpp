// Issue 27: a result row's status is a field of its own, from the bench's check to the server's answers:
// the bench writes it on every row, the server stores it in a column, and rows stored before the column
// get theirs from their error messages when the database is migrated.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <shaderwatch/result_contract.h>

#include "fixture_file.h"
#include "quick_bench.h"
#include "service/store.h"
#include "storage/sql.h"
#include "test_util.h"

using nlohmann::json;
using swt::cat;
using swt::TempDir;
using swt::TestServer;
namespace contract = shaderwatch::contract;

namespace {

std::string wrapped(const json& doc, const std::string& id) {
  return json{{"run", {{"id", id}, {"commit", "c-" + id}, {"started_at", "2026-11-20T00:00:00Z"}}}, {"benchmark", doc}}.dump();
}

// Each stored row's status, in document order.
std::vector<std::string> stored_statuses(TestServer& s, const std::string& run_id) {
  std::vector<std::string> out;
  const json answer = s.get(cat("/api/v1/runs/", run_id, "/results?limit=1000"));
  for (const auto& row : answer["results"])
    out.push_back(row["outcome"].get<std::string>());
  return out;
}

}  // namespace

TEST(RowStatus, TheBenchWritesEveryRowsStatusAndTheServerKeepsIt) {
  TempDir dir;
  // On lavapipe: a pass and the negative control (XFAIL, or XPASS when its race did not show).
  const json doc = swt::quick_bench_document(dir, "^lum/(sequential|unrolled_literal)_256$");
  ASSERT_FALSE(doc.is_null());
  std::map<std::string, std::string> by_benchmark;
  for (const auto& row : doc["benchmarks"]) {
    ASSERT_TRUE(row.contains(contract::kStatusField)) << row.dump();
    const std::string status = row[contract::kStatusField];
    // Google Benchmark's fields say the same, for its tools.
    EXPECT_EQ(status, contract::row_status_word(contract::row_status_of_message(row.value("error_occurred", false),
                                                                                 row.value("error_message", ""))))
        << row.dump();
    by_benchmark[row["run_name"]] = status;
  }
  EXPECT_EQ(by_benchmark.at("lum/sequential_256/320x180/hot"), "pass");
  const std::string control = by_benchmark.at("lum/unrolled_literal_256/320x180/hot");
  EXPECT_TRUE(control == "xfail" || control == "xpass") << control;

  TestServer s(dir.db("sw.db"));
  auto posted = s.post(wrapped(doc, "bench"));
  ASSERT_TRUE(posted);
  ASSERT_EQ(posted->status, 201) << posted->body;
  std::vector<std::string> written;
  for (const auto& row : doc["benchmarks"]) written.push_back(row[contract::kStatusField]);
  EXPECT_EQ(stored_statuses(s, "bench"), written);
}

// Format 3 (issue 53): every measured row says why its measurement stopped, and every compiled kernel what it
// computes, as the catalog says; the server stores the document and ranks by those operations.
TEST(RowStatus, TheBenchWritesFormatThreeStopReasonsAndOperations) {
  TempDir dir;
  const json doc = swt::quick_bench_document(dir, "^lum/(sequential|unrolled_literal)_256$");
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(doc["context"][contract::context_key(contract::kFormatVersion)], std::to_string(contract::kCurrentFormatVersion));
  std::size_t measured = 0;
  for (const auto& row : doc["benchmarks"]) {
    const bool error = row.value("error_occurred", false);
    EXPECT_EQ(row.contains(contract::kStopField), !error) << row.dump();
    if (error) continue;
    ++measured;
    const std::string stop = row[contract::kStopField];
    EXPECT_NE(row["label"].get<std::string>().find(" stop:" + stop), std::string::npos) << "the label says it too";
  }
  EXPECT_GT(measured, 0u);
  const json& compiled = doc[contract::kCompiledSection];
  ASSERT_TRUE(compiled.contains("lum/sequential_256")) << compiled.dump();
  EXPECT_EQ(compiled["lum/sequential_256"]["operation"], "luminance sum");
  TestServer s(dir.db("sw.db"));
  auto posted = s.post(wrapped(doc, "bench"));
  ASSERT_TRUE(posted);
  ASSERT_EQ(posted->status, 201) << posted->body;
  const json rank = s.get("/api/v1/rankings?commit=c-bench");
  ASSERT_FALSE(rank["groups"].empty());
  EXPECT_EQ(rank["groups"][0]["by_gpu"][0]["ranking"][0]["operation"], "luminance sum");
}

// Format 4 (issue 56): every compiled kernel says what bounds its time, as the catalog says; the run's benchmarks carry
// it, so that the run page shows "latency-bound" or "compute-bound" where a % of roofline would be near zero.
TEST(RowStatus, TheBenchSaysWhatBoundsEachKernelAndTheRunsBenchmarksCarryIt) {
  TempDir dir;
  const json doc =
      swt::quick_bench_document(dir, "^(lum/sequential_256|boids/single_invocation|postfx/dof_composite_staged)$",
                                "320x180,4096");
  ASSERT_FALSE(doc.is_null());
  const json& compiled = doc[contract::kCompiledSection];
  const std::map<std::string, std::string> expected = {
      {"lum/sequential_256", "bandwidth"}, {"boids/single_invocation", "latency"}, {"postfx/dof_composite_staged", "compute"}};
  for (const auto& [kernel, limit] : expected) EXPECT_EQ(compiled[kernel][contract::kLimitField], limit) << kernel;
  TestServer s(dir.db("sw.db"));
  auto posted = s.post(wrapped(doc, "bench"));
  ASSERT_TRUE(posted);
  ASSERT_EQ(posted->status, 201) << posted->body;
  std::size_t points = 0;
  const json run = s.get("/api/v1/runs/bench");
  for (const auto& p : run["points"]) {
    const std::string name = p["benchmark"];
    const std::string kernel = name.substr(0, name.find('/', name.find('/') + 1));
    ASSERT_TRUE(expected.contains(kernel)) << name;
    EXPECT_EQ(p["limit"], expected.at(kernel)) << name;
    ++points;
  }
  EXPECT_GE(points, 3u);
}

TEST(RowStatus, MigrationGivesRowsStoredBeforeTheColumnTheirStatus) {
  TempDir dir;
  const std::string db = dir.db("v4.db");
  // A bench from before the field: its statuses are in its error messages (and a retried check's counter).
  json doc = swt::read_fixture("shaderwatch_bench_quick.json");
  doc["benchmarks"][0][contract::kCheckRetriesCounter] = 1;
  std::vector<std::string> expected;
  {
    TestServer s(db);
    auto r = s.post(wrapped(doc, "old"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201) << r->body;
    expected = stored_statuses(s, "old");
  }
  ASSERT_EQ(expected.at(0), "flake");
  EXPECT_NE(std::find(expected.begin(), expected.end(), "xfail"), expected.end());
  EXPECT_NE(std::find(expected.begin(), expected.end(), "unsupported"), expected.end());
  {  // As a server before the column stored it.
    auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
    swt::set_back_to_schema(*c, 4);
  }
  TestServer s(db);
  EXPECT_EQ(s.store->schema_version(), shaderwatch::Store::kSchemaVersion);
  EXPECT_EQ(stored_statuses(s, "old"), expected);
}
