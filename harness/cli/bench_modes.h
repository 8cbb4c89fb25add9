// What shaderwatch-bench does once its command line is good: list, write images, check or benchmark. Each
// returns the exit status (common/exit_status.h); a lost device ends the process without the driver's teardown.
#pragma once

#include <regex>

#include "cli/bench_options.h"
#include "cli/gbench_flags.h"
#include "suite/benchmark_suite.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

// Ends the process without destructors or the driver's teardown: after a hang the device's work may still run,
// and lavapipe, for one, waits for it at exit (minutes for a million-boid dispatch). Every result is written.
[[noreturn]] void exit_leaving_the_driver(int status);

void list_devices(const Instance& instance);
// --list-kernels --device N: each kernel (matching the filter) built on the device at a small size, and what the
// driver compiled of it (the code does not depend on the size: sizes reach kernels as push constants).
int list_compiled_mode(Instance& instance, const BenchArgs& args, const std::regex& filter_re);
int write_images_mode(Instance& instance, const BenchArgs& args);
int check_mode(Instance& instance, const BenchArgs& args, const std::regex& filter_re);
int benchmark_mode(Instance& instance, const BenchArgs& args, BenchmarkOptions options, const GbenchFlags& gbench,
                   size_t columns);

}  // namespace shaderwatch
