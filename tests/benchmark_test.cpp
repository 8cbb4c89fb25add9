// shaderwatch-bench's benchmark mode as CI runs it: the --quick preset on the default device, every
// kernel, Google Benchmark JSON out. Every benchmark must have run and passed its check (the negative
// control reports its expected outcome as an error), and the context must name device and driver.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "report/benchmark_report.h"
#include "suite/expectations.h"
#include "catalog.h"
#include "run/roofline.h"
#include "run_command.h"

namespace {

using Result = CommandResult;

// stderr (progress) goes with stdout unless only stdout is wanted, as for parsing JSON.
Result run(const std::string& args, bool stdout_only = false) {
  return run_command(std::string(SHADERWATCH_BENCH) + " " + args + (stdout_only ? " 2>/dev/null" : " 2>&1"));
}

// The console report: every line fits 120 columns; one row per benchmark; the negative control's reason
// printed once for its rows; the closing summary with counts, where the JSON went and the exit status.
void expect_report_for_people(const std::string& output, const std::string& json_path) {
  std::istringstream lines(output);
  std::string line;
  size_t rows = 0, lines_seen = 0, negative_rows = 0, latency_rows = 0, compute_rows = 0;
  while (std::getline(lines, line)) {
    ++lines_seen;
    EXPECT_LE(line.size(), 120u) << line;
    EXPECT_TRUE(line.empty() || line.back() != ' ') << "trailing blanks: '" << line << "'";
    if (line.rfind("  ", 0) == 0 && (line.find(" hot ") != std::string::npos || line.find(" cold ") != std::string::npos) &&
        line.find("  PASS") != std::string::npos)
      ++rows;
    if (line.rfind("  unrolled_literal_256 ", 0) == 0) {
      ++negative_rows;
      EXPECT_NE(line.find("XFAIL [1]"), std::string::npos) << line;
    }
    // Issue 56: where bandwidth does not bound a kernel, the roofline column of its timed rows says what does.
    if (line.rfind("  single_invocation ", 0) == 0 && line.find("  PASS") != std::string::npos) {
      ++latency_rows;
      EXPECT_NE(line.find(" latency  "), std::string::npos) << line;
    }
    if (line.rfind("  dof_composite_staged ", 0) == 0) {
      ++compute_rows;
      EXPECT_NE(line.find(" compute  "), std::string::npos) << line;
    }
  }
  EXPECT_EQ(negative_rows, 4u) << "the negative control at 2 sizes, hot and cold";
  EXPECT_EQ(latency_rows, 2u) << "at 4,096 positions; at 65,536 llvmpipe's loop limit makes it an XPASS, untimed";
  EXPECT_EQ(compute_rows, 4u);
  EXPECT_GE(rows, 180u);
  // Each kernel's 4 benchmarks (2 sizes, hot and cold) a line each, and about 60 lines of headings and summary.
  EXPECT_LT(lines_seen, shaderwatch::catalog().size() * 4 + 80) << "one line per benchmark, not Google Benchmark's four";
  auto count = [&](const std::string& text) {
    size_t n = 0;
    for (size_t at = output.find(text); at != std::string::npos; at = output.find(text, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("EXPECTED (negative control)"), 1u) << "the negative control's reason, once";
  // XPASS: boids/single_invocation at 65,536, hot and cold, under llvmpipe's loop limit (kernels/expectations.json):
  // llvmpipe leaves out the last position, within the random input's bound.
  EXPECT_EQ(count("\nchecks: 202 PASS, 4 XFAIL (expected), 2 XPASS\n"), 1u) << output.substr(output.size() > 3000 ? output.size() - 3000 : 0);
  EXPECT_EQ(count("  luminance       1280x720  luminance sum (of 15)"), 1u) << "the fastest per family and size";
  EXPECT_EQ(count("among the kernels of its main operation:\n"), 1u);
  std::string flat = output;  // the legend is wrapped to the terminal's width
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  EXPECT_NE(flat.find("spread: their p25-p75 range over the median; roofline: the least time"), std::string::npos)
      << "the columns, defined";
  EXPECT_EQ(count("time by phase:"), 1u);
  EXPECT_EQ(count("results: " + json_path + " (json)"), 1u);
  EXPECT_NE(output.find("exit 0: every benchmark ran and gave the right answer\n"), std::string::npos);
  EXPECT_EQ(output.find("***WARNING***"), std::string::npos) << "Google Benchmark's console header";
  EXPECT_EQ(output.find("_stddev"), std::string::npos) << "no aggregate rows";
}

TEST(BenchmarkQuick, EveryKernelTimedCheckedAndDescribed) {
  const auto json_path = std::filesystem::temp_directory_path() / "shaderwatch_quick_test.json";
  const Result r = run("--quick --seed 77 --benchmark_out=" + json_path.string() + " --benchmark_out_format=json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[1/"), std::string::npos) << "no progress lines";
  expect_report_for_people(r.output, json_path.string());
  std::ifstream in(json_path);
  const auto doc = nlohmann::json::parse(in);
  const auto& context = doc.at("context");
  for (const char* key : {"sw_device_name", "sw_vendor_id", "sw_device_id", "sw_driver_name", "sw_driver_version",
                          "sw_api_version", "sw_device_uuid", "sw_subgroup_size", "sw_peak_bandwidth_gbs",
                          "sw_read_only_gbs", "sw_write_gbs", "sw_harness_revision", "sw_seed"}) {
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
    const bool negative = std::any_of(entries.begin(), entries.end(), [&](const auto& e) {
      return e.id == "negative control" && shaderwatch::glob_match(e.kernel, kernel);
    });
    // llvmpipe's loop limit (kernels/expectations.json): labelled XPASS or XFAIL, never a pass, at 65,536 alone.
    if (b.value("error_message", "").rfind("EXPECTED (llvmpipe loop limit)", 0) == 0) {
      EXPECT_EQ(name.rfind("boids/single_invocation/65536/", 0), 0u) << name;
      continue;
    }
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
    // Not on a CPU device: its caches hold the small inputs, so the memory roofline says nothing.
    EXPECT_EQ(b.contains("pct_of_roofline"), context.at("sw_device_type") != "cpu") << name;
    EXPECT_FALSE(b.contains("pct_of_peak")) << name << ": the copy-peak figure is gone from new runs";
    const std::string label = b.at("label");
    EXPECT_NE(label.find("spirv:"), std::string::npos);
    EXPECT_EQ(label.find("groups:") != std::string::npos, b.at("groups").get<double>() > 1) << label;
    EXPECT_EQ(label.find("precision-not-reached") != std::string::npos, b.at("precise").get<double>() == 0) << label;
  }
  // What was compiled, once per kernel: its SPIR-V hash as in its labels, and the driver's statistics where the
  // device gives them (NVIDIA's driver does; this machine's lavapipe says it cannot).
  const std::string statistics = context.at("sw_pipeline_statistics");
  const bool captured = statistics == "captured";
  if (!captured) {
    EXPECT_EQ(statistics.rfind("unavailable: ", 0), 0u) << statistics;
  }
  const auto& compiled = doc.at("sw_compiled");
  EXPECT_EQ(compiled.size(), kernels_seen.size());
  for (const auto& b : doc.at("benchmarks")) {
    const std::string name = b.at("name");
    const std::string kernel = name.substr(0, name.find('/', name.find('/') + 1));
    if (b.value("error_occurred", false) || b.value("run_type", "iteration") != "iteration") continue;
    ASSERT_TRUE(compiled.contains(kernel)) << kernel;
    EXPECT_NE(b.at("label").get<std::string>().find("spirv:" + compiled[kernel].at("spirv").get<std::string>() + " "),
              std::string::npos) << name;
    ASSERT_GE(compiled[kernel].at("pipelines").size(), 1u) << kernel;
    for (const auto& executables : compiled[kernel].at("pipelines")) {
      EXPECT_EQ(executables.empty(), !captured) << kernel;
    }
  }
  for (const auto& [name, count] : repetitions) {
    // An expected failure is one labelled row: the negative control, and llvmpipe's loop limit.
    const bool expected = name.rfind("lum/unrolled_literal_256/", 0) == 0 || name.rfind("boids/single_invocation/65536/", 0) == 0;
    EXPECT_EQ(count, expected ? 1u : shaderwatch::kReportedRepetitions) << name;
  }
  const size_t benchmarks = repetitions.size();
  EXPECT_EQ(kernels_seen.size(), shaderwatch::catalog().size());
  // 17 luminance and 24 post-processing kernels x 2 sizes x 2 modes + 11 boids kernels x 2 counts x 2 modes.
  EXPECT_EQ(benchmarks, (17u + 24u) * 2 * 2 + 11u * 2 * 2);
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

// Google Benchmark's own console table is one flag away; without --benchmark_out the report says the
// results were not saved; a wrong answer is exit 1 and its row says FAIL with its message as a note.
TEST(BenchmarkQuick, TheReportSaysWhatWentWrongAndGoogleBenchmarksTableIsOneFlagAway) {
  const std::string args = "--quick --sizes 64x32 --filter '^lum/sequential_256$' --benchmark_min_time=0.001";
  Result r = run(args + " --corrupt-output lum/sequential_256", /*stdout_only=*/true);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("  sequential_256"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL [1]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[1] 2 rows: FAIL: "), std::string::npos) << "one note for the two rows: " << r.output;
  EXPECT_NE(r.output.find("checks: 2 FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("results not saved: add --benchmark_out=FILE"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exit 1: a wrong answer"), std::string::npos) << r.output;

  r = run(args + " --gbench-console", /*stdout_only=*/true);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("lum/sequential_256/64x32/hot_median"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("exit 0:"), std::string::npos) << r.output;
}

TEST(BenchmarkQuick, BadOutputFormatIsRefusedBeforeAnyWork) {
  const Result r = run("--quick --benchmark_out=/tmp/x.json --benchmark_out_format=bogus");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.output.find("bogus"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[1/"), std::string::npos) << "benchmarks ran: " << r.output;
}

TEST(BenchmarkQuick, AnOutputFileThatCannotBeWrittenIsRefusedBeforeAnyWork) {
  const auto dir = std::filesystem::temp_directory_path() / "sw-no-such-dir" / "deeper";
  const Result r = run("--quick --benchmark_out=" + (dir / "out.json").string());
  EXPECT_EQ(r.exit_code, 4);
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

TEST(CheckRace, RunsWithTheDelaysSaysSoListsThemAndGoesWithCheckOnly) {
  const Result r = run("--check --race --filter '^boids/groupshared_subgroup$'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("race delays: on"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("; 0 unexpected failures"), std::string::npos) << r.output;
  const Result listed = run("--list-devices");
  EXPECT_NE(listed.output.find("race delays (--check --race): available"), std::string::npos) << listed.output;
  const Result alone = run("--race");
  EXPECT_EQ(alone.exit_code, 4);
  EXPECT_NE(alone.output.find("--race goes with --check"), std::string::npos) << alone.output;
}

TEST(BenchmarkQuick, BadSizesAreNamed) {
  const Result r = run("--sizes 1920x,4096");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.output.find("1920x"), std::string::npos) << r.output;
}

}  // namespace

// The roofline prices each probe's own traffic at exactly its measured time, and a reduction by its reads
// alone: a read-only kernel at the read-only rate is at 100%, not at the copy peak's 100 * read / copy.
TEST(Roofline, EachProbeIsItsOwnRooflineAndAReductionIsPricedByReading) {
  shaderwatch::Bandwidths b;
  b.copy_kernel = 3.6e12, b.copy_buffer = 3.9e12, b.read_only = 4.4e12, b.write = 3.0e12;
  const uint64_t n = uint64_t{1} << 30;
  // Reading and writing one after the other (1 / 4.4 + 1 / 3.0) is slower here than the measured copy.
  EXPECT_DOUBLE_EQ(shaderwatch::roofline_seconds({n, n}, b), 2.0 * n / 3.9e12);
  EXPECT_DOUBLE_EQ(shaderwatch::roofline_seconds({n, 0}, b), n / 4.4e12);
  EXPECT_DOUBLE_EQ(shaderwatch::roofline_seconds({0, n}, b), n / 3.0e12);
  // The depth-of-field composite reads twice and writes once: one pair, one more read.
  EXPECT_DOUBLE_EQ(shaderwatch::roofline_seconds({2 * n, n}, b), 2.0 * n / 3.9e12 + n / 4.4e12);
  EXPECT_NEAR(shaderwatch::pct_of_roofline({n, 0}, b, n / 4.4e12 / 0.98), 98.0, 1e-9);
  // A copy probe slower than reading then writing (the H200's vkCmdCopyBuffer, 850 GB/s, and a copy
  // kernel that does not reach the read and write rates): pairs are priced as separate reads and writes.
  b.copy_kernel = 1.0e12, b.copy_buffer = 0.85e12, b.write = 4.0e12;
  EXPECT_DOUBLE_EQ(shaderwatch::roofline_seconds({n, n}, b), n / 4.4e12 + n / 4.0e12);
  EXPECT_EQ(shaderwatch::pct_of_roofline({n, 0}, shaderwatch::Bandwidths{}, 1.0), 0.0) << "no probe, no figure";
}

// The catalog's traffic: reductions read their input once; image-to-image kernels also write it.
TEST(Roofline, TrafficComesFromTheCatalog) {
  using shaderwatch::find_kernel;
  const uint64_t pixels = 1920 * 1080, image = pixels * 16;
  const auto sum = shaderwatch::kernel_traffic(find_kernel("lum/sequential_256"), pixels);
  EXPECT_EQ(sum.bytes_read, image);
  EXPECT_EQ(sum.bytes_written, 0u);
  const auto tone = shaderwatch::kernel_traffic(find_kernel("postfx/tonemap_reinhard"), pixels);
  EXPECT_EQ(tone.bytes_read, image);
  EXPECT_EQ(tone.bytes_written, image);
  const auto blur = shaderwatch::kernel_traffic(find_kernel("postfx/blur_shared_r16"), pixels);
  EXPECT_EQ(blur.bytes_read, 2 * image);
  EXPECT_EQ(blur.bytes_written, 2 * image);
}
