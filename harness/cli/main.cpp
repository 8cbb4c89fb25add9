// shaderwatch-bench: runs the kernel catalog on a Vulkan device. By default it benchmarks every kernel
// at every size, hot and cold, through Google Benchmark, checking each result; --check runs the
// correctness suite; --list-devices and --list-kernels describe what there is. The options are
// bench_options.h, Google Benchmark's own flags gbench_flags.h, the modes bench_modes.h.
#include <benchmark/benchmark.h>

#include <CLI/CLI.hpp>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <regex>

#include "cli/bench_modes.h"
#include "cli/bench_options.h"
#include "cli/gbench_flags.h"
#include "common/exit_status.h"
#include "report/post_results.h"
#include "common/text_wrap.h"
#include "vulkan/kernel_sources.h"

using namespace shaderwatch;

namespace {

// --list-kernels and --list-sources need no device.
void list_catalog(const BenchArgs& a) {
  if (a.list_kernels)
    for (const auto& k : catalog()) std::cout << k.name << "  " << k.description << "\n";
  if (a.list_sources) {
    // kernels/' files by name, a pack's by path; a pack kernel is built from its manifest too (its plan, defines and
    // tolerance) and held to its expectations.
    for (const auto& k : catalog()) {
      std::cout << k.name;
      for (const auto& file : kernel_source_files(k)) std::cout << " " << source_path(file);
      if (const std::string pack = pack_of_source(k.shaders.at(0).file); !pack.empty()) {
        const std::string dir = source_path(pack + "/");
        for (const char* f : {"pack.toml", "pack.json", "expectations.json"})
          if (std::filesystem::is_regular_file(dir + f)) std::cout << " " << dir << f;
      }
      std::cout << "\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const size_t columns = terminal_columns();
  CLI::App app{"", "shaderwatch-bench"};
  BenchArgs args;
  add_bench_options(app, args, columns);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << app.help();
      return 0;
    }
  }
  GbenchFlags gbench;
  try {
    gbench = read_gbench_flags(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "shaderwatch-bench: " << e.what() << "\n";
    return kExitUsage;
  }
  // --benchmark_out is the bench's to write (each document once, with its own fields): Google Benchmark does not
  // see it.
  argc = without_out_file_flags(argc, argv);
  benchmark::Initialize(&argc, argv);  // takes its --benchmark_* flags out of argv
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints CLI11's message
    return kExitUsage;
  }
  std::regex filter_re;
  BenchmarkOptions options;
  if (const std::string problem = usage_problem(args, gbench, filter_re, options); !problem.empty()) {
    std::cerr << "shaderwatch-bench: " << problem << "\n";
    return kExitUsage;
  }
  // The results server answers and takes the token before any GPU work, not after it.
  if (!args.post.url.empty()) {
    const auto check = check_post_server(args.post);
    if (!check.problem.empty()) std::cerr << "shaderwatch-bench: " << check.problem << "\n";
    if (check.status != kExitPass) return check.status;
  }
  const bool compiled_on_device = args.list_kernels && !args.device_selector.empty();
  if (!compiled_on_device) list_catalog(args);
  if ((args.list_kernels || args.list_sources) && !args.list_devices && !args.check && !compiled_on_device) return 0;
  if (args.seed == 0) args.seed = std::random_device{}() | 1;
  if (!args.kernels_dir.empty()) use_kernel_sources_from(args.kernels_dir);

  try {
    Instance instance(args.validation);
    if (args.list_devices) {
      list_devices(instance);
      if (!args.check && !compiled_on_device) return 0;
    }
    if (compiled_on_device) return list_compiled_mode(instance, args, filter_re);
    if (!args.images_dir.empty()) return write_images_mode(instance, args);
    if (args.check) return check_mode(instance, args, filter_re);
    return benchmark_mode(instance, args, options, gbench, columns);
  } catch (const UsageError& e) {
    std::cerr << "shaderwatch-bench: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "shaderwatch-bench: " << e.what() << "\n";
    if (Device::any_lost()) exit_leaving_the_driver(kExitInfrastructure);
    return kExitInfrastructure;
  }
}
