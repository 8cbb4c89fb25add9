// The ingest adapter (server/src/ingest_parse.*) on fixture documents: real shaderwatch-bench output
// and plain Google Benchmark output with its measurement decoration. No database.
#include <gtest/gtest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include <shaderwatch/result_contract.h>

#include "fixture_file.h"
#include "ingest/ingest_parse.h"
#include "service/store.h"
#include "common/iso8601.h"
#include "common/json_body.h"

using nlohmann::json;

namespace {

std::string wrapped(const json& doc, json run = {{"id", "r1"}, {"commit", "c1"}}) {
  return json{{"run", run}, {"benchmark", doc}}.dump();
}

}  // namespace

TEST(IngestParse, ShaderwatchBenchOutput) {
  // A --quick run on lavapipe: a measured benchmark (10 repetitions and 4 aggregates), the negative
  // control's expected outcome and an UNSUPPORTED kernel.
  const auto p = shaderwatch::parse_body(wrapped(swt::read_fixture("shaderwatch_bench_quick.json")), 64);
  ASSERT_EQ(p.rows.size(), 16u);
  EXPECT_EQ(p.device_name.rfind("llvmpipe", 0), 0u) << p.device_name;
  EXPECT_EQ(p.driver_name, "llvmpipe");
  EXPECT_NE(p.harness_revision, "unknown");
  int iterations = 0, errors = 0;
  for (const auto& r : p.rows) {
    if (r.error) {
      ++errors;
      EXPECT_FALSE(r.status_given) << "a bench from before the status field";
      const auto kind = shaderwatch::contract::row_kind(r.status);
      EXPECT_TRUE(kind == shaderwatch::contract::RowKind::ExpectedOutcome ||
                  kind == shaderwatch::contract::RowKind::Unsupported)
          << r.error_message;
      continue;
    }
    EXPECT_EQ(r.series_name, "lum/sequential_256/320x180/hot");
    if (r.run_type != "iteration") continue;
    ++iterations;
    ASSERT_TRUE(r.real_ns);
    EXPECT_GT(*r.real_ns, 1000) << "microseconds scaled to ns";
    const json& counters = r.counters;
    EXPECT_TRUE(counters.contains("p25_us") && counters.contains("p75_us") && counters.contains("median_us"));
  }
  EXPECT_EQ(iterations, 10);
  EXPECT_EQ(errors, 2);
  EXPECT_EQ(p.sha, shaderwatch::parse_body(wrapped(swt::read_fixture("shaderwatch_bench_quick.json")), 64).sha) << "content id is stable";
}

TEST(IngestParse, PlainGoogleBenchmarkWithDecoration) {
  const auto p = shaderwatch::parse_body(wrapped(swt::read_fixture("decorated_plain.json")), 64);
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
    shaderwatch::parse_body(wrapped(doc), 64);
    FAIL() << "accepted a string time";
  } catch (const shaderwatch::ClientError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.field, "benchmark.benchmarks[1].real_time");
  }
  try {
    shaderwatch::parse_body(wrapped(swt::read_fixture("decorated_plain.json"), {{"id", "r1"}, {"commit", "c1"}, {"merge_base", "a b"}}), 64);
    FAIL() << "accepted a merge base with a space";
  } catch (const shaderwatch::ClientError& e) {
    EXPECT_EQ(e.field, "run.merge_base");
  }
}

namespace {

// The field and message of the ClientError parse_body throws, or "accepted".
std::string refusal(const std::string& body) {
  try {
    shaderwatch::parse_body(body, 64);
  } catch (const shaderwatch::ClientError& e) {
    return e.field + ": " + e.what();
  }
  return "accepted";
}

}  // namespace

// Issue 13, finding 7: times that do not exist were moved (29 February 2026 read as 1 March, 23:59:60
// rolled over) and a time before 1970 in UTC was stored as 1969-12-31T23:59:01.-500Z.
TEST(IngestParse, TimesThatDoNotExistAreRefusedNotMoved) {
  for (const char* t : {"2026-02-29T10:00:00Z", "2026-12-31T23:59:60Z", "1970-01-01T00:00:00.5+00:01",
                        "2026-04-31T00:00:00Z", "2026-01-01T24:00:00Z"}) {
    EXPECT_FALSE(shaderwatch::parse_iso8601_ms(t)) << t;
    const json doc = swt::read_fixture("decorated_plain.json");
    EXPECT_EQ(refusal(wrapped(doc, {{"id", "r1"}, {"commit", "c1"}, {"started_at", t}})).rfind("run.started_at: ", 0), 0u) << t;
  }
  EXPECT_EQ(shaderwatch::parse_iso8601_ms("2024-02-29T10:00:00Z"), 1709200800000) << "a leap year has it";
  EXPECT_EQ(shaderwatch::parse_iso8601_ms("1970-01-01T00:01:00.5+00:01"), 500);
  EXPECT_EQ(shaderwatch::format_iso8601_ms(*shaderwatch::parse_iso8601_ms("2026-11-21T09:30:00.250+05:30")), "2026-11-21T04:00:00.250Z");
}

// Finding 7: a byte order mark, a trailing NUL and a duplicate key were accepted (the last key winning),
// and so were 100,000 counters in one row (1,000 here: more of such tiny values pass the memory bound, json_body).
TEST(IngestParse, BodiesThatMeanSomethingElseThanTheyShowAreRefused) {
  const std::string good = wrapped(swt::read_fixture("decorated_plain.json"));
  EXPECT_EQ(refusal(good), "accepted");
  EXPECT_EQ(refusal(std::string("\xEF\xBB\xBF").append(good)), "$: a UTF-8 byte order mark before the JSON");
  EXPECT_EQ(refusal(good + std::string(1, '\0')), "$: a NUL byte in the body");
  std::string twice = good;
  twice.insert(1, R"("run": {"id": "shadow", "commit": "c0"}, )");
  EXPECT_EQ(refusal(twice), "run: duplicate key in a JSON object");
  json doc = swt::read_fixture("decorated_plain.json");
  for (int i = 0; i < 1000; ++i) doc["benchmarks"][0][std::string("c").append(std::to_string(i))] = i;
  EXPECT_NE(refusal(wrapped(doc)).find("counters, more than 256"), std::string::npos);
}

// Finding 5: every answer about a run grows with its benchmarks; a run holds at most 10,000.
TEST(IngestParse, ARunHoldsABoundedNumberOfBenchmarks) {
  json doc = swt::read_fixture("decorated_plain.json");
  const json row = doc["benchmarks"][0];
  doc["benchmarks"] = json::array();
  for (int i = 0; i <= 10000; ++i) {
    json r = row;
    r["name"] = r["run_name"] = std::string("fam/v").append(std::to_string(i)).append("/1/hot");
    doc["benchmarks"].push_back(r);
  }
  EXPECT_EQ(refusal(wrapped(doc)), "benchmark.benchmarks: 10001 distinct benchmarks, more than 10000 in one run");
  doc["benchmarks"].erase(doc["benchmarks"].size() - 1);
  EXPECT_EQ(refusal(wrapped(doc)), "accepted");
}

// Issue 27: a row's status travels in a field of its own (contract::kStatusField), and must agree with
// Google Benchmark's error_occurred, which is kept for its tools; a document without it (every bench
// before the field) is read from its error messages as before, and keeps its content id.
TEST(IngestParse, ARowsStatusIsAFieldOfItsOwn) {
  namespace contract = shaderwatch::contract;
  const json plain = swt::read_fixture("decorated_plain.json");
  const auto before = shaderwatch::parse_body(wrapped(plain), 64);
  for (const auto& r : before.rows) {
    EXPECT_FALSE(r.status_given);
    EXPECT_EQ(r.status, contract::RowStatus::Pass);
  }
  json doc = plain;
  for (auto& row : doc["benchmarks"]) row[contract::kStatusField] = "flake";
  const auto given = shaderwatch::parse_body(wrapped(doc), 64);
  for (const auto& r : given.rows) EXPECT_EQ(r.status, contract::RowStatus::Flake);
  EXPECT_NE(given.sha, before.sha) << "the status is part of what was stored";

  // An error row: its status says which kind of error, whatever its message says.
  json error_row = doc["benchmarks"][0];
  error_row.erase("real_time"), error_row.erase("cpu_time"), error_row.erase("iterations");
  error_row["error_occurred"] = true;
  error_row["error_message"] = "a message that does not start with any prefix";
  error_row[contract::kStatusField] = "unsupported";
  doc["benchmarks"] = json::array({error_row});
  EXPECT_EQ(shaderwatch::parse_body(wrapped(doc), 64).rows.at(0).status, contract::RowStatus::Unsupported);

  const auto refused = [&](const json& status, bool error) {
    json d = doc;
    d["benchmarks"][0][contract::kStatusField] = status;
    d["benchmarks"][0]["error_occurred"] = error;
    return refusal(wrapped(d));
  };
  EXPECT_EQ(refused("fail", true), "accepted");
  EXPECT_EQ(refused("broken", true),
            "benchmark.benchmarks[0].sw_status: 'broken' is not a row status (pass, flake, skip, xfail, xpass, unsupported, fail)");
  EXPECT_EQ(refused(3, true), "benchmark.benchmarks[0].sw_status: must be a string");
  EXPECT_EQ(refused("pass", true),
            "benchmark.benchmarks[0].sw_status: 'pass' is a status without an error, but error_occurred is true");
}

// A pass whose check was retried (check_retries > 0), from before the status field, is a flake.
TEST(IngestParse, ARetriedPassWithoutTheFieldIsAFlake) {
  json doc = swt::read_fixture("decorated_plain.json");
  doc["benchmarks"][0][shaderwatch::contract::kCheckRetriesCounter] = 2;
  const auto p = shaderwatch::parse_body(wrapped(doc), 64);
  EXPECT_EQ(p.rows.at(0).status, shaderwatch::contract::RowStatus::Flake);
  EXPECT_EQ(p.rows.at(1).status, shaderwatch::contract::RowStatus::Pass);
}

// Issue 53: a document says its format (contract::kFormatVersion); none is version 1, which the server brings up
// to the current one (ingest/format_upgrade.cpp), and the current one must carry what version 1 was allowed to leave
// out. A version newer than the server's, or not a whole number, is refused by name.
TEST(IngestParse, TheFormatVersionSaysWhatADocumentMustCarry) {
  namespace contract = shaderwatch::contract;
  const std::string key = contract::context_key(contract::kFormatVersion);
  const std::string path = "benchmark.context." + key;
  json doc = swt::read_fixture("decorated_plain.json");
  doc["benchmarks"][0][contract::kCheckRetriesCounter] = 2;
  const auto v1 = shaderwatch::parse_body(wrapped(doc), 64);
  EXPECT_EQ(v1.format_version, contract::kCurrentFormatVersion) << "brought up to the current format";
  EXPECT_EQ(v1.rows.at(0).status, contract::RowStatus::Flake) << "version 1: the status from the row";

  json v2 = doc;
  v2["context"][key] = "2";
  EXPECT_EQ(refusal(wrapped(v2)), "benchmark.benchmarks[0].sw_status: missing required field (format version 2)");
  for (auto& row : v2["benchmarks"]) row[contract::kStatusField] = "pass";
  const auto second = shaderwatch::parse_body(wrapped(v2), 64);
  EXPECT_EQ(second.rows.at(0).status, contract::RowStatus::Pass) << "from version 2 the status is its field's";

  // Version 3: a measured row says why its measurement stopped; a compiled kernel what it computes.
  json v3 = v2;
  v3["context"][key] = "3";
  EXPECT_EQ(refusal(wrapped(v3)), "benchmark.benchmarks[0].sw_stop: missing required field (format version 3)");
  for (auto& row : v3["benchmarks"]) row[contract::kStopField] = "low-noise";
  EXPECT_EQ(shaderwatch::parse_body(wrapped(v3), 64).rows.at(0).stop, "low-noise");
  v3["benchmarks"][0][contract::kStopField] = "low noise";
  EXPECT_EQ(refusal(wrapped(v3)), "benchmark.benchmarks[0].sw_stop: must be one word of printable ASCII");
  v3["benchmarks"][0][contract::kStopField] = "low-noise";
  v3[contract::kCompiledSection] = {{"scan/dec", {{"spirv", "0123abcd"}, {"input", "x@1"}, {"pipelines", json::array()}}}};
  EXPECT_EQ(refusal(wrapped(v3)), std::string("benchmark.") + contract::kCompiledSection + ".scan/dec.operation: missing required field");
  v3[contract::kCompiledSection]["scan/dec"]["operation"] = "prefix sum";
  const auto current = shaderwatch::parse_body(wrapped(v3), 64);
  EXPECT_EQ(current.compiled.at(0).operation, "prefix sum");
  EXPECT_NE(current.sha, shaderwatch::parse_body(wrapped(v2), 64).sha) << "the stop reasons are part of the content";
  EXPECT_TRUE(current.compiled.at(0).limit.empty()) << "before version 4 what bounds a kernel is not known";

  // Version 4 (issue 56): a compiled kernel says what bounds its time, in the contract's words.
  json v4 = v3;
  v4["context"][key] = "4";
  const std::string limit_path = std::string("benchmark.") + contract::kCompiledSection + ".scan/dec." + contract::kLimitField;
  EXPECT_EQ(refusal(wrapped(v4)), limit_path + ": missing required field");
  v4[contract::kCompiledSection]["scan/dec"][contract::kLimitField] = "memory";
  EXPECT_EQ(refusal(wrapped(v4)), limit_path + ": 'memory' is not a limit (bandwidth, latency, compute)");
  v4[contract::kCompiledSection]["scan/dec"][contract::kLimitField] = "latency";
  const auto fourth = shaderwatch::parse_body(wrapped(v4), 64);
  EXPECT_EQ(fourth.compiled.at(0).limit, "latency");
  v4[contract::kCompiledSection]["scan/dec"][contract::kLimitField] = "compute";
  EXPECT_NE(fourth.sha, shaderwatch::parse_body(wrapped(v4), 64).sha) << "the limit is part of the content";

  v2["context"][key] = "5";
  EXPECT_EQ(refusal(wrapped(v2)), path + ": format version 5 is newer than this server reads (up to 4): upgrade the server");
  v2["context"][key] = "two";
  EXPECT_EQ(refusal(wrapped(v2)), path + ": must be a whole number as a string, such as \"2\"");
  v2["context"][key] = "0";
  EXPECT_EQ(refusal(wrapped(v2)), path + ": format versions start at 1");
  v2["context"][key] = 2;
  EXPECT_EQ(refusal(wrapped(v2)), path + ": must be a string");
}

// Version 1's driver version is spelled again from the raw driverVersion (an older harness wrote NVIDIA's
// 580.159.04 as 580.159.4.0); a current document's is the vendor's spelling as written.
TEST(IngestParse, OnlyVersionOnesDriverVersionIsSpelledAgain) {
  namespace contract = shaderwatch::contract;
  json doc = swt::read_fixture("decorated_plain.json");
  doc["context"][contract::context_key(contract::kVendorId)] = "0x10de";
  doc["context"][contract::context_key(contract::kDriverId)] = "4";
  doc["context"][contract::context_key(contract::kDriverVersionRaw)] = "0x9127c100";
  doc["context"][contract::context_key(contract::kDriverVersion)] = "580.159.4.0";
  EXPECT_EQ(shaderwatch::parse_body(wrapped(doc), 64).driver_version, "580.159.04");
  doc["context"][contract::context_key(contract::kFormatVersion)] = "2";
  doc["context"][contract::context_key(contract::kDriverVersion)] = "580.159.04";
  for (auto& row : doc["benchmarks"]) row[contract::kStatusField] = "pass";
  EXPECT_EQ(shaderwatch::parse_body(wrapped(doc), 64).driver_version, "580.159.04");
}

// A measured row's SPIR-V hash is its kernel's in the compiled section; before format 3 a row whose kernel has no
// entry there is read by its label. From format 3 the label is only words: it is never read.
TEST(IngestParse, ARowsSpirvIsItsKernelsCompiledEntryAndOnlyBeforeFormatThreeItsLabel) {
  namespace contract = shaderwatch::contract;
  json doc = swt::read_fixture("decorated_plain.json");
  for (auto& row : doc["benchmarks"]) row["label"] = "spirv:aaaa1111 stop:low-noise";
  EXPECT_EQ(shaderwatch::parse_body(wrapped(doc), 64).rows.at(0).spirv, "aaaa1111") << "format 1: by its label";
  doc[contract::kCompiledSection] = {{"scan/dec", {{"spirv", "bbbb2222"}, {"input", "x@1"}, {"pipelines", json::array()}}}};
  EXPECT_EQ(shaderwatch::parse_body(wrapped(doc), 64).rows.at(0).spirv, "bbbb2222") << "its kernel's entry first";
  doc["context"][contract::context_key(contract::kFormatVersion)] = "3";
  doc[contract::kCompiledSection] = json::object();
  for (auto& row : doc["benchmarks"]) {
    row[contract::kStatusField] = "pass";
    row[contract::kStopField] = "low-noise";
  }
  const auto v3 = shaderwatch::parse_body(wrapped(doc), 64);
  EXPECT_TRUE(v3.rows.at(0).spirv.empty()) << "format 3 without an entry: none, whatever the label says";
}

// Issue 55, item 5: a body of kCheckedFirstBytes or more has its rows checked one at a time before any tree is built
// (three refused 60 MiB bodies took 543 MiB with the tree). It is judged as the same body below the size: every
// refusal names the same field with the same words, and what is accepted is the same run. Padding after the JSON
// makes a body large without changing what it says; nlohmann writes "benchmarks" before "context", so the rows are
// read before the format version that says what they must carry.
TEST(IngestParse, ALargeBodyIsJudgedAsTheSameBodySmall) {
  namespace contract = shaderwatch::contract;
  const std::string key = contract::context_key(contract::kFormatVersion);
  const json plain = swt::read_fixture("decorated_plain.json");
  std::vector<std::string> bodies = {wrapped(plain), wrapped(swt::read_fixture("shaderwatch_bench_quick.json"))};
  json v2 = plain;
  v2["context"][key] = "2";
  bodies.push_back(wrapped(v2));  // no status: refused at row 0
  for (auto& row : v2["benchmarks"]) row[contract::kStatusField] = "pass";
  bodies.push_back(wrapped(v2));
  v2["benchmarks"].back().erase(contract::kStatusField);
  bodies.push_back(wrapped(v2));  // the last row without its status
  json v3 = v2;
  v3["benchmarks"].back()[contract::kStatusField] = "pass";
  v3["context"][key] = "3";
  bodies.push_back(wrapped(v3));  // no stop reasons
  for (auto& row : v3["benchmarks"]) row[contract::kStopField] = "low-noise";
  bodies.push_back(wrapped(v3));
  v3["benchmarks"].back()["real_time"] = "slow";
  bodies.push_back(wrapped(v3));  // a bad field in the last row
  v3["benchmarks"].back()["real_time"] = 1.5;
  v3["benchmarks"].back()["error_occurred"] = true;
  bodies.push_back(wrapped(v3));  // an error row with a stop reason
  json many = plain;
  many["benchmarks"] = json::array();
  for (int i = 0; i <= 10000; ++i) {
    json r = plain["benchmarks"][0];
    r["name"] = r["run_name"] = std::string("fam/v").append(std::to_string(i)).append("/1/hot");
    many["benchmarks"].push_back(r);
  }
  bodies.push_back(wrapped(many));  // 10,001 distinct benchmarks
  bodies.push_back(wrapped(plain, {{"id", "r 1"}, {"commit", "c1"}}));
  bodies.push_back(wrapped(plain).insert(1, R"("run": {"id": "shadow", "commit": "c0"}, )"));
  bodies.push_back(wrapped(plain).substr(0, 300));
  std::size_t accepted = 0;
  for (const std::string& small : bodies) {
    ASSERT_LT(small.size(), shaderwatch::kCheckedFirstBytes);
    const std::string large = small + std::string(shaderwatch::kCheckedFirstBytes, ' ');
    const std::string said = refusal(small);
    // A body cut short is refused at its end, which the padding moves.
    const auto at_any_column = [](const std::string& s) { return std::regex_replace(s, std::regex("column \\d+"), "column N"); };
    EXPECT_EQ(at_any_column(refusal(large)), at_any_column(said)) << small.substr(0, 200);
    if (said == "accepted") {
      ++accepted;
      EXPECT_EQ(shaderwatch::parse_body(large, 64).sha, shaderwatch::parse_body(small, 64).sha);
    }
  }
  EXPECT_EQ(accepted, 4u);
  // Rows of many tiny counters, whose tree would pass the memory bound (413 from the tree's reading): read one at a
  // time, the row at fault is named instead, here the last, without its status where the format asks for one.
  std::string tiny = R"({"run": {"id": "r1", "commit": "c1", "started_at": "2026-01-01T00:00:00Z"}, "benchmark": {"benchmarks": [)";
  for (int i = 0; i < 5000; ++i) {
    tiny.append(i ? "," : "").append(R"({"name": "f/v/)").append(std::to_string(i)).append(R"(/hot", "real_time": 1, "cpu_time": 1, "iterations": 1)");
    if (i < 4999) tiny.append(R"(, "sw_status": "pass")");
    for (int c = 0; c < 200; ++c) tiny.append(",\"c").append(std::to_string(c)).append("\":1");
    tiny.append("}");
  }
  tiny.append(R"(], "context": {")" + key + R"(": "2"}}})");
  ASSERT_GE(tiny.size(), shaderwatch::kCheckedFirstBytes);
  EXPECT_EQ(refusal(tiny), "benchmark.benchmarks[4999].sw_status: missing required field (format version 2)");
  try {
    shaderwatch::parse_json_object(tiny, 64);
    ADD_FAILURE() << "the whole tree was read";
  } catch (const shaderwatch::ClientError& e) {
    EXPECT_EQ(e.status, 413);
  }
}
