// shaderwatch-bench's benchmark mode as CI runs it: the --quick preset on the default device, every
// kernel, Google Benchmark JSON out. Every benchmark must have run and passed its check (the negative
// control reports its expected outcome as an error), and the context must name device and driver.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "benchmark_report.h"
#include "expectations.h"
#include "catalog.h"
#include "run_command.h"

namespace {

using Result = CommandResult;

// stderr (progress) goes with stdout unless only stdout is wanted, as for parsing JSON.
Result run(const std::string& args, bool stdout_only = false) {
  return run_command(std::string(SHADERWATCH_BENCH) + " " + args + (stdout_only ? " 2>/dev/null" : " 2>&1"));
}

TEST(BenchmarkQuick, EveryKernelTimedCheckedAndDescribed) {
  const auto json_path = std::filesystem::temp_directory_path() / "shaderwatch_quick_test.json";
  const Result r = run("--quick --seed 77 --benchmark_out=" + json_path.string() + " --benchmark_out_format=json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[1/"), std::string::npos) << "no progress lines";
  std::ifstream in(json_path);
  const auto doc = nlohmann::json::parse(in);
  const auto& context = doc.at("context");
  for (const char* key : {"sw_device_name", "sw_vendor_id", "sw_device_id", "sw_driver_name", "sw_driver_version",
                          "sw_api_version", "sw_device_uuid", "sw_subgroup_size", "sw_peak_bandwidth_gbs",
                          "sw_harness_revision", "sw_seed"}) {
    EXPECT_TRUE(context.contains(key)) << key;
  }
  EXPECT_EQ(context.at("sw_seed"), "77");
  EXPECT_GT(std::stod(context.at("sw_peak_bandwidth_gbs").get<std::string>()), 0.0);

  std::set<std::string> kernels_seen;
  std::map<std::string, size_t> repetitions;  // per benchmark name
  for (const auto& b : doc.at("benchmarks")) {
    const std::string name = b.at("name");
    EXPECT_EQ(name.find("iterations:"), std::string::npos) << name;
    EXPECT_EQ(name.find("manual_time"), std::string::npos) << name;
    if (b.value("run_type", "iteration") != "iteration") continue;
    ++repetitions[name];
    EXPECT_EQ(std::count(name.begin(), name.end(), '/'), 3) << "family/variant/size/mode: " << name;
    const std::string kernel = name.substr(0, name.find('/', name.find('/') + 1));
    kernels_seen.insert(kernel);
    const shaderwatch::Expectations builtin = shaderwatch::builtin_expectations();
    const auto& entries = builtin.entries();
    const bool negative = std::any_of(entries.begin(), entries.end(),
                                      [&](const auto& e) { return shaderwatch::glob_match(e.kernel, kernel); });
    if (negative) {
      // Always reported as an error, labelled, so it never reads as a pass.
      ASSERT_TRUE(b.value("error_occurred", false)) << name;
      EXPECT_NE(b.at("error_message").get<std::string>().find("negative control"), std::string::npos);
      continue;
    }
    ASSERT_FALSE(b.value("error_occurred", false)) << name << ": " << b.value("error_message", "");
    EXPECT_GE(b.at("samples").get<double>(), 10) << name;
    // Each repetition is a chunk of the samples: its time lies within the samples' range.
    EXPECT_GT(b.at("real_time").get<double>(), 0) << name;
    EXPECT_GE(b.at("real_time").get<double>(), b.at("min_us").get<double>() * (1 - 1e-9)) << name;
    EXPECT_LE(b.at("min_us").get<double>(), b.at("p25_us").get<double>());
    EXPECT_LE(b.at("p25_us").get<double>(), b.at("median_us").get<double>());
    EXPECT_LE(b.at("median_us").get<double>(), b.at("p75_us").get<double>());
    EXPECT_GE(b.at("groups").get<double>(), 1) << name;
    EXPECT_LE(b.at("err_bound_ratio").get<double>(), 1.0);
    EXPECT_GT(b.at("bytes_per_second").get<double>(), 0);
    const std::string label = b.at("label");
    EXPECT_NE(label.find("spirv:"), std::string::npos);
    EXPECT_EQ(label.find("groups:") != std::string::npos, b.at("groups").get<double>() > 1) << label;
    EXPECT_EQ(label.find("precision-not-reached") != std::string::npos, b.at("precise").get<double>() == 0) << label;
  }
  for (const auto& [name, count] : repetitions) {
    const bool negative = name.rfind("lum/unrolled_literal_256/", 0) == 0;
    EXPECT_EQ(count, negative ? 1u : shaderwatch::kReportedRepetitions) << name;
  }
  const size_t benchmarks = repetitions.size();
  EXPECT_EQ(kernels_seen.size(), shaderwatch::catalog().size());
  // 17 luminance and 22 post-processing kernels x 2 sizes x 2 modes + 9 boids kernels x 2 counts x 2 modes.
  EXPECT_EQ(benchmarks, (17u + 22u) * 2 * 2 + 9u * 2 * 2);
  std::filesystem::remove(json_path);
}

TEST(BenchmarkQuick, GoogleBenchmarkFlagsAndSizesWork) {
  const Result r = run("--quick --sizes 17x3,5 --filter 'sequential_256|single_invocation' --benchmark_min_time=0.001 "
                       "--benchmark_format=json --benchmark_filter='/hot'",
                       /*stdout_only=*/true);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  std::set<std::string> names;
  for (const auto& b : doc.at("benchmarks")) names.insert(b.at("name").get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"lum/sequential_256/17x3/hot", "boids/single_invocation/5/hot",
                                          "lum/sequential_256/17x3/hot_mean", "boids/single_invocation/5/hot_mean",
                                          "lum/sequential_256/17x3/hot_median", "boids/single_invocation/5/hot_median",
                                          "lum/sequential_256/17x3/hot_stddev", "boids/single_invocation/5/hot_stddev",
                                          "lum/sequential_256/17x3/hot_cv", "boids/single_invocation/5/hot_cv"}));
}

TEST(BenchmarkQuick, BadOutputFormatIsRefusedBeforeAnyWork) {
  const Result r = run("--quick --benchmark_out=/tmp/x.json --benchmark_out_format=bogus");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("bogus"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[1/"), std::string::npos) << "benchmarks ran: " << r.output;
}

TEST(BenchmarkQuick, AnOutputFileThatCannotBeWrittenIsRefusedBeforeAnyWork) {
  const auto dir = std::filesystem::temp_directory_path() / "sw-no-such-dir" / "deeper";
  const Result r = run("--quick --benchmark_out=" + (dir / "out.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find((dir / "out.json").string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("No such file or directory"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[1/"), std::string::npos) << "benchmarks ran: " << r.output;

  // A writable path that did not exist is not left behind by the check.
  const auto fresh = std::filesystem::temp_directory_path() / "sw-check-writable.json";
  std::filesystem::remove(fresh);
  const Result listed = run("--list-kernels --benchmark_out=" + fresh.string());
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_FALSE(std::filesystem::exists(fresh));
}

TEST(BenchmarkQuick, BadSizesAreNamed) {
  const Result r = run("--sizes 1920x,4096");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("1920x"), std::string::npos) << r.output;
}

}  // namespace
