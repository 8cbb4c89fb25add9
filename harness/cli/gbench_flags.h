// Google Benchmark's own flags that shaderwatch-bench reads itself, before benchmark::Initialize takes them
// out of argv: the library would answer some bad values with exit status 0, apply --benchmark_min_time to
// iterations the sampler chooses, and write its file with names the report cleans.
#pragma once

#include <optional>
#include <string>

namespace shaderwatch {

struct GbenchFlags {
  std::optional<double> min_time;  // --benchmark_min_time: the sampler's minimum GPU time
  std::string out_file;            // --benchmark_out; empty: no file
  std::string out_format;          // --benchmark_out_format, json where not given (with out_file only)
  bool console = true;             // stdout is the console format: the report for people
};

// Throws std::invalid_argument naming the flag: a bad value, an unknown output format, an output file that
// cannot be written.
GbenchFlags read_gbench_flags(int argc, char** argv);

// argv without --benchmark_out and --benchmark_out_format (read into GbenchFlags first), for benchmark::Initialize:
// the bench writes that file itself. Returns the new argc; argv[argc] stays a null pointer.
int without_out_file_flags(int argc, char** argv);

}  // namespace shaderwatch
