#include "cli/gbench_flags.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string_view>

#include "report/benchmark_report.h"

namespace shaderwatch {

namespace {

// The value of a Google Benchmark flag given as --name=value, read before benchmark::Initialize takes
// its flags out of argv.
std::optional<std::string> flag_value(int argc, char** argv, const std::string& name) {
  const std::string prefix = name + "=";
  std::optional<std::string> value;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) value = argv[i] + prefix.size();
  }
  return value;
}

// Google Benchmark's --benchmark_min_time becomes the sampler's minimum GPU time: the library itself
// would apply it to iterations, which the sampler chooses.
std::optional<double> benchmark_min_time(int argc, char** argv) {
  const auto text = flag_value(argc, argv, "--benchmark_min_time");
  if (!text) return std::nullopt;
  std::string value = *text;
  if (!value.empty() && value.back() == 's') value.pop_back();
  try {
    size_t used = 0;
    const double seconds = std::stod(value, &used);
    if (used == value.size() && seconds >= 0) return seconds;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("--benchmark_min_time: '" + *text + "' is not a number of seconds");
}

// Google Benchmark answers a bad --benchmark_format with its usage and exit status 0, and takes a negative
// repetition count: a CI job would pass with no results. Its flags with a fixed set of values or a range
// are checked here first; the message names the flag.
void check_benchmark_flags(int argc, char** argv) {
  auto one_of = [&](const std::string& name, std::initializer_list<std::string_view> allowed) {
    const auto value = flag_value(argc, argv, name);
    if (!value || std::find(allowed.begin(), allowed.end(), *value) != allowed.end()) return;
    std::string list;
    for (auto a : allowed) list.append(list.empty() ? "" : "|").append(a);
    throw std::invalid_argument(name + ": '" + *value + "' is not one of " + list);
  };
  one_of("--benchmark_format", {"console", "json", "csv"});
  one_of("--benchmark_out_format", {"console", "json", "csv"});
  one_of("--benchmark_color", {"auto", "true", "false", "yes", "no", "1", "0"});
  for (const char* name : {"--benchmark_repetitions", "--v"}) {
    const auto value = flag_value(argc, argv, name);
    if (!value) continue;
    const bool digits = !value->empty() && value->size() <= 9 && value->find_first_not_of("0123456789") == std::string::npos;
    if (!digits || (std::string_view(name) == "--benchmark_repetitions" && std::stoi(*value) < 1))
      throw std::invalid_argument(std::string(name) + ": '" + *value + "' is not a whole number" +
                                  (std::string_view(name) == "--benchmark_repetitions" ? " from 1 up" : " from 0 up"));
  }
}

}  // namespace

GbenchFlags read_gbench_flags(int argc, char** argv) {
  GbenchFlags flags;
  check_benchmark_flags(argc, argv);
  flags.min_time = benchmark_min_time(argc, argv);
  if (const auto out = flag_value(argc, argv, "--benchmark_out")) {
    flags.out_file = *out;
    flags.out_format = flag_value(argc, argv, "--benchmark_out_format").value_or("json");
    make_file_reporter(flags.out_format);  // an unknown format fails here, before any GPU work
    check_output_file_writable(flags.out_file);
  }
  // Only the console format gets the report; json and csv on stdout are Google Benchmark's.
  flags.console = flag_value(argc, argv, "--benchmark_format").value_or("console") == "console";
  return flags;
}

int without_out_file_flags(int argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--benchmark_out=") || arg.starts_with("--benchmark_out_format=")) continue;
    argv[kept++] = argv[i];
  }
  argv[kept] = nullptr;
  return kept;
}

}  // namespace shaderwatch
