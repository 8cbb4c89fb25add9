// What --benchmark_out becomes from Google Benchmark's JSON held in memory (report/result_documents.h): each row
// with its status field, one document per device, each written once and its text kept for --post. No device
// needed: the JSON is built here as Google Benchmark writes it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "catalog.h"
#include "report/result_documents.h"
#include "run/sample_stats.h"
#include "run/stopping_criterion.h"

namespace {

using nlohmann::ordered_json;
using shaderwatch::BenchmarkResult;
using shaderwatch::CheckStatus;

struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("sw-docs-" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

ordered_json read(const std::filesystem::path& p) {
  std::ifstream in(p);
  return ordered_json::parse(in);
}

// Google Benchmark's JSON reporter's text, as report_benchmarks holds it.
std::string gbench_text(const ordered_json& doc) { return doc.dump(2); }

BenchmarkResult result(const std::string& name, CheckStatus status) {
  BenchmarkResult r;
  r.name = name;
  r.outcome.status = status;
  if (shaderwatch::contract::is_error_status(shaderwatch::row_status(status))) r.error_message = "FAIL: wrong";
  return r;
}

ordered_json row(const std::string& run_name, const std::string& name, bool error) {
  ordered_json r = {{"name", name}, {"run_name", run_name}, {"run_type", "iteration"}};
  if (error) r["error_occurred"] = true, r["error_message"] = "FAIL: wrong";
  return r;
}

}  // namespace

TEST(ResultDocuments, EveryRowGetsItsStatusInPlace) {
  TempDir dir;
  const auto file = dir.path / "results.json";
  const std::string gbench = gbench_text({{"context", {{"sw_device_name", "llvmpipe"}}},
               {"benchmarks", {row("lum/a/64/hot", "lum/a/64/hot", false), row("lum/a/64/hot", "lum/a/64/hot_mean", false),
                               row("lum/b/64/hot", "lum/b/64/hot", true)}}});
  const auto docs = shaderwatch::write_result_documents(
      file.string(), gbench, {result("lum/a/64/hot", CheckStatus::Flake), result("lum/b/64/hot", CheckStatus::Improbable)},
      {{"", {{"device_name", "llvmpipe"}}}});
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].path, file.string());
  EXPECT_EQ(docs[0].run_id_suffix, "");
  const auto doc = read(file);
  std::ifstream in(file, std::ios::binary);
  EXPECT_EQ(docs[0].text, std::string(std::istreambuf_iterator<char>(in), {})) << "--post sends the text written";
  EXPECT_FALSE(docs[0].dated) << "its context has no date";
  EXPECT_EQ(doc.begin().key(), "context") << "written in the order Google Benchmark wrote it";
  EXPECT_EQ(doc["benchmarks"][0]["sw_status"], "flake");
  EXPECT_EQ(doc["benchmarks"][1]["sw_status"], "flake") << "an aggregate row too";
  EXPECT_EQ(doc["benchmarks"][2]["sw_status"], "fail");
  // Format 3: why a measured row's measurement stopped; a row that reports an error was not measured.
  const std::string stop = shaderwatch::stop_reason_name(shaderwatch::Measurement{}.stop);
  EXPECT_EQ(doc["benchmarks"][0]["sw_stop"], stop);
  EXPECT_EQ(doc["benchmarks"][1]["sw_stop"], stop) << "an aggregate row too";
  EXPECT_FALSE(doc["benchmarks"][2].contains("sw_stop"));
}

TEST(ResultDocuments, SeveralDevicesAreOneDocumentEach) {
  TempDir dir;
  const auto file = dir.path / "results.json";
  std::ofstream(file) << "{}";  // a run before left it
  // Google Benchmark's context says nothing of the devices: each document gets its own device's keys.
  const std::string gbench = gbench_text({{"context", {{"date", "2026-11-28T09:00:00+00:00"}, {"sw_seed", "5"}}},
               {"benchmarks", {row("lum/a/64/hot/dev0", "lum/a/64/hot/dev0", false),
                               row("lum/a/64/hot/dev1", "lum/a/64/hot/dev1", true)}}});
  BenchmarkResult on_h200 = result("lum/a/64/hot/dev0", CheckStatus::Pass), on_h100 = result("lum/a/64/hot/dev1", CheckStatus::Unsupported);
  on_h200.device_suffix = "/dev0";
  on_h100.device_suffix = "/dev1";
  const auto docs = shaderwatch::write_result_documents(file.string(), gbench, {on_h200, on_h100},
                                                        {{"/dev0", {{"device_name", "H200"}}}, {"/dev1", {{"device_name", "H100"}}}});
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(file)) << "a document of a run before is not left to be posted as this one";
  EXPECT_EQ(docs[0].path, (dir.path / "results-dev0.json").string());
  EXPECT_EQ(docs[1].run_id_suffix, "-dev1");
  const auto dev1 = read(docs[1].path);
  EXPECT_EQ(dev1["context"], ordered_json({{"date", "2026-11-28T09:00:00+00:00"}, {"sw_seed", "5"}, {"sw_device_name", "H100"}}));
  EXPECT_TRUE(docs[1].dated);
  EXPECT_EQ(ordered_json::parse(docs[1].text), dev1) << "--post sends the text written";
  ASSERT_EQ(dev1["benchmarks"].size(), 1u);
  EXPECT_EQ(dev1["benchmarks"][0]["name"], "lum/a/64/hot");
  EXPECT_EQ(dev1["benchmarks"][0]["sw_status"], "unsupported");
  EXPECT_EQ(read(docs[0].path)["benchmarks"][0]["sw_status"], "pass");
}

TEST(ResultDocuments, EachDeviceDocumentSaysWhatWasCompiledForItsKernelsOnce) {
  TempDir dir;
  const auto file = dir.path / "results.json";
  const std::string gbench = gbench_text({{"context", ordered_json::object()},
               {"benchmarks", {row("lum/interleaved_256/64/hot/dev0", "lum/interleaved_256/64/hot/dev0", false),
                               row("lum/interleaved_256/64/cold/dev0", "lum/interleaved_256/64/cold/dev0", false),
                               row("lum/interleaved_256/64/hot/dev1", "lum/interleaved_256/64/hot/dev1", false)}}});
  const auto& catalog = shaderwatch::catalog();
  const auto spec = std::find_if(catalog.begin(), catalog.end(), [](const auto& s) { return s.name == "lum/interleaved_256"; });
  ASSERT_NE(spec, catalog.end());
  const auto measured = [&](const std::string& mode_and_device, const std::string& spirv, bool cold,
                            std::vector<std::vector<shaderwatch::PipelineExecutable>> compiled) {
    BenchmarkResult r = result("lum/interleaved_256/64/" + mode_and_device, CheckStatus::Pass);
    r.spec = &*spec;
    r.size = "64";
    r.cold = cold;
    r.device_suffix = mode_and_device.substr(mode_and_device.find('/'));
    r.spirv_hash = spirv;
    r.input = "random@1";
    r.compiled = std::make_shared<const std::vector<std::vector<shaderwatch::PipelineExecutable>>>(std::move(compiled));
    return r;
  };
  const shaderwatch::PipelineExecutable main{"Compute shader", 32,
                                             {{"Registers", uint64_t{40}}, {"Spills", false}, {"Occupancy", 0.5}}};
  shaderwatch::write_result_documents(file.string(), gbench, {measured("hot/dev0", "7ee3", false, {{main}}),
                                                       measured("cold/dev0", "7ee3", true, {{main}}),
                                                       measured("hot/dev1", "7ee3", false, {{}})},
                                      {{"/dev0", {{"device_name", "H200"}}}, {"/dev1", {{"device_name", "llvmpipe"}}}});
  const auto dev0 = read(dir.path / "results-dev0.json")["sw_compiled"];
  EXPECT_EQ(dev0, ordered_json::parse(R"({"lum/interleaved_256": {"spirv": "7ee3", "input": "random@1", "operation": "luminance sum",
      "limit": "bandwidth", "pipelines": [[{"executable":
      "Compute shader", "subgroup_size": 32, "statistics": [{"name": "Registers", "format": "uint64", "value": 40},
      {"name": "Spills", "format": "bool32", "value": false}, {"name": "Occupancy", "format": "float64", "value": 0.5}]}]]}})"))
      << "once per kernel, under its plain name";
  EXPECT_EQ(read(dir.path / "results-dev1.json")["sw_compiled"],
            ordered_json::parse(R"({"lum/interleaved_256": {"spirv": "7ee3", "input": "random@1", "operation": "luminance sum",
                                                        "limit": "bandwidth", "pipelines": [[]]}})"))
      << "a device that does not say: the hash, and one empty list per pipeline";
}

TEST(ResultDocuments, ARowOfNoBenchmarkIsNamed) {
  TempDir dir;
  const auto file = dir.path / "results.json";
  const std::string gbench = gbench_text({{"context", ordered_json::object()}, {"benchmarks", {row("lum/x/64/hot", "lum/x/64/hot", false)}}});
  try {
    shaderwatch::write_result_documents(file.string(), gbench, {result("lum/a/64/hot", CheckStatus::Pass)}, {});
    FAIL() << "a row of no benchmark was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("row 'lum/x/64/hot' is no benchmark of this run"), std::string::npos) << e.what();
  }
}

namespace {

// A benchmark as measured: `seconds` its samples (summarized as the sampler does), checked and passing.
BenchmarkResult measured_result(const std::string& name, std::vector<double> seconds) {
  BenchmarkResult r = result(name, CheckStatus::Pass);
  r.measurement.seconds = std::move(seconds);
  r.measurement.stats = shaderwatch::summarize(r.measurement.seconds);
  return r;
}

}  // namespace

TEST(ReportBenchmarks, GoogleBenchmarksJsonIsHeldInMemoryWithCleanNames) {
  const std::vector<BenchmarkResult> results = {measured_result("lum/a/64/hot", std::vector<double>(20, 1e-3))};
  const auto reported = shaderwatch::report_benchmarks(results, "json", /*display=*/false);
  EXPECT_EQ(reported.unexpected_failures, 0);
  const auto doc = ordered_json::parse(reported.out_text);
  ASSERT_TRUE(doc.contains("context") && doc["benchmarks"].is_array()) << reported.out_text.substr(0, 500);
  ASSERT_FALSE(doc["benchmarks"].empty());
  for (const auto& row : doc["benchmarks"]) EXPECT_EQ(row["run_name"], "lum/a/64/hot");
  EXPECT_EQ(shaderwatch::report_benchmarks(results, "", false).out_text, "") << "no --benchmark_out, nothing held";
}

// Google Benchmark's CSV reporter takes its columns from the first runs it is given and aborts on a counter that
// comes later: a second benchmark whose samples form two groups has group counters the first has not.
TEST(ReportBenchmarks, ACsvWhoseLaterBenchmarkHasMoreCountersHasTheirColumns) {
  std::vector<double> two_groups(20, 1e-3);
  for (size_t i = 0; i < two_groups.size(); i += 2) two_groups[i] = 2e-3;
  const std::vector<BenchmarkResult> results = {measured_result("lum/a/64/hot", std::vector<double>(20, 1e-3)),
                                                measured_result("lum/b/64/hot", two_groups)};
  ASSERT_GT(results[1].measurement.stats.groups.size(), 1u) << "the samples do not form two groups";
  const auto reported = shaderwatch::report_benchmarks(results, "csv", /*display=*/false);
  const std::string header = reported.out_text.substr(reported.out_text.find("name,"));
  EXPECT_NE(header.substr(0, header.find('\n')).find("group1_us"), std::string::npos) << reported.out_text;
  EXPECT_NE(reported.out_text.find("\"lum/b/64/hot\""), std::string::npos) << reported.out_text;
}
