// shaderwatch-bench's options: what the command line sets, the help that describes it, and the checks that
// make a command line a usage error (exit 4) before any GPU work.
#pragma once

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "suite/expectations.h"
#include "cli/gbench_flags.h"
#include "report/post_results.h"
#include "suite/benchmark_suite.h"

namespace shaderwatch {

struct BenchArgs {
  bool list_devices = false, list_kernels = false, list_sources = false, check = false, validation = false,
       quick = false, gbench_console = false;
  std::string device_selector, filter = ".*", sizes, images_dir, kernels_dir;
  uint64_t seed = 0;  // 0: random, chosen at the start and printed
  uint64_t flush_mib = 0;
  std::vector<std::string> expectation_files;
  std::vector<std::string> packs;  // kernel pack directories (pack/kernel_pack.h)
  CheckPolicy policy;
  PostOptions post;

  bool benchmark_mode() const { return !check && !list_devices && !list_kernels && !list_sources && images_dir.empty(); }
};

// Every option on `app`, with the description and the footer wrapped to `columns`.
void add_bench_options(CLI::App& app, BenchArgs& args, size_t columns);

// What makes the parsed command line unusable, or empty: the message after "shaderwatch-bench: ". Fills in
// what the checks build on the way: the post token from SHADERWATCH_TOKEN, the filter, the benchmark options; and
// adds the --pack kernels to the catalog (a pack that cannot be read is a usage problem, exit 4).
std::string usage_problem(BenchArgs& args, const GbenchFlags& gbench, std::regex& filter_re, BenchmarkOptions& options);

// Where a selected pack kernel cannot run at a size this run uses (the benchmark sizes, or the --check suite's
// inputs): its formulas, and given a device, that device's limits and those of the CPU device its reference shader
// runs on, `cpu` (pack/pack_limits.h); "" where all can.
std::string pack_sizes_problem(const BenchArgs& args, const BenchmarkOptions& options, const std::regex& filter,
                               const DeviceInfo* device = nullptr, const DeviceInfo* cpu = nullptr);

}  // namespace shaderwatch
