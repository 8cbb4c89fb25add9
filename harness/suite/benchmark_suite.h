#pragma once
// The benchmark: every catalog kernel at every size, hot and cold, timed on the GPU through Google
// Benchmark, its last timed output checked against the reference.
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include <shaderwatch/result_contract.h>

#include "suite/benchmark_result.h"
#include "suite/expectations.h"
#include "run/gpu_timer.h"
#include "inputs/inputs.h"
#include "suite/suite_timing.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {


struct BenchmarkOptions {
  std::vector<SizeSpec> image_sizes;  // WxH: the sizes of every family whose size is an image
  std::vector<SizeSpec> boids_counts;  // N: of every family whose size is a count (boids)
  std::regex filter{".*"};
  uint64_t seed = 1;
  SamplingOptions sampling;
  uint64_t peak_copy_bytes = uint64_t{1} << 30;  // per buffer (read + written)
  std::string harness_revision;
  CheckPolicy policy;  // expectations per device and driver, --corrupt-output
  bool sizes_chosen = false;  // by --sizes or --quick: every kernel runs at them, a pack kernel's own sizes aside
  const std::vector<SizeSpec>& sizes(SizeKind kind) const { return kind == SizeKind::Image ? image_sizes : boids_counts; }
};
// The sizes a kernel is benchmarked at: a pack kernel's own (KernelSpec::sizes) unless the run chose sizes (an input
// file's one size whatever the run chose), else the run's for its family's kind.
std::vector<SizeSpec> benchmark_sizes(const KernelSpec& spec, const BenchmarkOptions& options);

BenchmarkOptions default_benchmark_options();
BenchmarkOptions quick_benchmark_options();  // small sizes, few samples: every kernel on lavapipe in minutes
// "1920x1080,4096,...": WxH entries are image sizes, plain counts boids. Throws std::invalid_argument.
void apply_sizes(BenchmarkOptions& options, const std::string& list);

// Measures the memory roofline on each device, writes the context, then samples every selected benchmark
// (names family/variant/size/mode, plus /dev<N> with several devices; --filter on the kernel name,
// --benchmark_filter on the whole name) and checks its last output, checks overlapping the sampling.
// A benchmark the options select: --filter on the kernel name, --benchmark_filter (Google Benchmark's,
// after benchmark::Initialize) on the whole name, family/variant/size/mode plus `device_suffix`.
// Throws UsageError for a --benchmark_filter that is not a regular expression.
struct SelectedBenchmark {
  const KernelSpec* spec;
  SizeSpec size;
  std::string size_text;  // "1920x1080", "4096"
  bool cold;
  std::string name;
};
std::vector<SelectedBenchmark> selected_benchmarks(const BenchmarkOptions& options, const std::string& device_suffix = "");

// A device of the run, and what its results document's context says of it: the keys without their "sw_" prefix
// (contract::context_key), in the order written.
struct RunDevice {
  std::string suffix;  // BenchmarkResult::device_suffix of its results: "" with one device, "/dev<N>" with several
  std::vector<std::pair<std::string, std::string>> context;
};

struct BenchmarkRun {
  std::vector<BenchmarkResult> results;
  SuiteTiming timing;                 // where the wall time went
  double seconds = 0;                 // wall time of the whole suite
  std::vector<std::string> devices;   // "NVIDIA H200 (NVIDIA 580.159.04)"
  std::vector<RunDevice> device_contexts;  // one per device, in device order
};
BenchmarkRun measure_benchmarks(Instance& instance, const std::vector<uint32_t>& devices, const BenchmarkOptions& options);


}  // namespace shaderwatch
