// What --benchmark_out becomes after Google Benchmark wrote it (report/result_documents.h): each row with its
// status field, and one document per device. No device needed: the documents are built here as Google
// Benchmark writes them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "catalog.h"
#include "report/result_documents.h"

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

void write(const std::filesystem::path& p, const ordered_json& doc) { std::ofstream(p) << doc.dump(2); }

BenchmarkResult result(const std::string& name, CheckStatus status) {
  BenchmarkResult r;
  r.name = name;
  r.outcome.status = status;
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
  write(file, {{"context", {{"sw_device_name", "llvmpipe"}}},
               {"benchmarks", {row("lum/a/64/hot", "lum/a/64/hot", false), row("lum/a/64/hot", "lum/a/64/hot_mean", false),
                               row("lum/b/64/hot", "lum/b/64/hot", true)}}});
  const auto docs = shaderwatch::finish_result_documents(
      file.string(), {result("lum/a/64/hot", CheckStatus::Flake), result("lum/b/64/hot", CheckStatus::Improbable)});
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].path, file.string());
  EXPECT_EQ(docs[0].run_id_suffix, "");
  const auto doc = read(file);
  EXPECT_EQ(doc.begin().key(), "context") << "written in the order Google Benchmark wrote it";
  EXPECT_EQ(doc["benchmarks"][0]["sw_status"], "flake");
  EXPECT_EQ(doc["benchmarks"][1]["sw_status"], "flake") << "an aggregate row too";
  EXPECT_EQ(doc["benchmarks"][2]["sw_status"], "fail");
}

TEST(ResultDocuments, SeveralDevicesAreOneDocumentEach) {
  TempDir dir;
  const auto file = dir.path / "results.json";
  write(file, {{"context", {{"sw_seed", "5"}, {"swdev0_device_name", "H200"}, {"swdev1_device_name", "H100"}}},
               {"benchmarks", {row("lum/a/64/hot/dev0", "lum/a/64/hot/dev0", false),
                               row("lum/a/64/hot/dev1", "lum/a/64/hot/dev1", true)}}});
  const auto docs = shaderwatch::finish_result_documents(
      file.string(), {result("lum/a/64/hot/dev0", CheckStatus::Pass), result("lum/a/64/hot/dev1", CheckStatus::Unsupported)});
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(file)) << "the merged document is not left to be posted";
  EXPECT_EQ(docs[0].path, (dir.path / "results-dev0.json").string());
  EXPECT_EQ(docs[1].run_id_suffix, "-dev1");
  const auto dev1 = read(docs[1].path);
  EXPECT_EQ(dev1["context"], ordered_json({{"sw_seed", "5"}, {"sw_device_name", "H100"}}));
  ASSERT_EQ(dev1["benchmarks"].size(), 1u);
  EXPECT_EQ(dev1["benchmarks"][0]["name"], "lum/a/64/hot");
  EXPECT_EQ(dev1["benchmarks"][0]["sw_status"], "unsupported");
  EXPECT_EQ(read(docs[0].path)["benchmarks"][0]["sw_status"], "pass");
}

TEST(ResultDocuments, EachDeviceDocumentSaysWhatWasCompiledForItsKernelsOnce) {
  TempDir dir;
  const auto file = dir.path / "results.json";
  write(file, {{"context", {{"swdev0_device_name", "H200"}, {"swdev1_device_name", "llvmpipe"}}},
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
  shaderwatch::finish_result_documents(file.string(), {measured("hot/dev0", "7ee3", false, {{main}}),
                                                       measured("cold/dev0", "7ee3", true, {{main}}),
                                                       measured("hot/dev1", "7ee3", false, {{}})});
  const auto dev0 = read(dir.path / "results-dev0.json")["sw_compiled"];
  EXPECT_EQ(dev0, ordered_json::parse(R"({"lum/interleaved_256": {"spirv": "7ee3", "input": "random@1", "pipelines": [[{"executable":
      "Compute shader", "subgroup_size": 32, "statistics": [{"name": "Registers", "format": "uint64", "value": 40},
      {"name": "Spills", "format": "bool32", "value": false}, {"name": "Occupancy", "format": "float64", "value": 0.5}]}]]}})"))
      << "once per kernel, under its plain name";
  EXPECT_EQ(read(dir.path / "results-dev1.json")["sw_compiled"],
            ordered_json::parse(R"({"lum/interleaved_256": {"spirv": "7ee3", "input": "random@1", "pipelines": [[]]}})"))
      << "a device that does not say: the hash, and one empty list per pipeline";
}

TEST(ResultDocuments, ARowOfNoBenchmarkIsNamed) {
  TempDir dir;
  const auto file = dir.path / "results.json";
  write(file, {{"context", ordered_json::object()}, {"benchmarks", {row("lum/x/64/hot", "lum/x/64/hot", false)}}});
  try {
    shaderwatch::finish_result_documents(file.string(), {result("lum/a/64/hot", CheckStatus::Pass)});
    FAIL() << "a row of no benchmark was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("row 'lum/x/64/hot' is no benchmark of this run"), std::string::npos) << e.what();
  }
}
