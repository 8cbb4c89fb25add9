// shaderwatch-bench: runs the kernel catalog on a Vulkan device. By default it benchmarks every kernel
// at every size, hot and cold, through Google Benchmark, checking each result; --check runs the
// correctness suite; --list-devices and --list-kernels describe what there is.
#include <benchmark/benchmark.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <regex>

#include "run/benchmark_suite.h"
#include "check/check_suite.h"
#include "report/exit_status.h"
#include "report/image_writer.h"
#include "vulkan/kernel_sources.h"
#include "report/post_results.h"
#include "report/terminal_report.h"
#include "report/text_wrap.h"

namespace shaderwatch {
extern const char* const kHarnessRevision;
}

using namespace shaderwatch;

namespace {

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

void list_devices(const Instance& instance) {
  for (const auto& d : instance.devices()) {
    std::cout << d.index << ": " << d.name << "\n"
              << "   type " << d.type_name() << ", vendor " << hex(d.vendor_id) << ", device " << hex(d.device_id)
              << "\n   driver " << d.driver_name << " (" << d.driver_info << "), version "
              << d.driver_version_string() << "\n   Vulkan " << d.api_version_string() << ", subgroup size "
              << d.subgroup_size;
    if (d.max_subgroup_size) std::cout << " (" << d.min_subgroup_size << "-" << d.max_subgroup_size << ")";
    if (d.compute_subgroup_size_control) std::cout << ", requirable in compute";
    std::cout << "\n";
  }
}

// The footer of --help, in paragraphs wrapped to the terminal (a line starting with spaces is kept whole).
constexpr const char* kBenchmarkFlagsHelp = R"(
Benchmark mode (the default) also takes Google Benchmark's flags, e.g.:
  --benchmark_filter=REGEX       only benchmarks whose name matches (-REGEX: not)
  --benchmark_min_time=SECONDS   minimum GPU time of the low-noise stop (0.5)
  --benchmark_format=FORMAT      stdout: console (the report below), json, csv
  --benchmark_out=FILE           write the results to FILE
  --benchmark_out_format=FORMAT  its format: json (the default), csv, console
  --benchmark_context=KEY=VALUE  an extra context entry

On the console the report has one line per benchmark, grouped by family and size: median, spread (p25 to p75 as % of the median), % of the memory roofline (the time the kernel's bytes read and written take at this run's measured read-only, write and copy bandwidths), and the check (PASS; XFAIL, an expected failure; FAIL in red). A closing summary gives the counts, the fastest variant per family and size, time by phase, the slowest benchmarks, where the results went and what the exit status means. --gbench-console prints Google Benchmark's own table instead.

Each benchmark: a warm-up until the clocks are up (longer after the GPU sat idle), then batches of timed dispatches until a stopping rule holds: relative stdev under 0.5% with the minimum GPU time, the noise estimate or the batch medians settled (never while drifting or while the samples form two or more groups), the groups' shares settled ("multi-group"), or 15 s ("precision-not-reached"). The JSON has 10 Google Benchmark repetitions per benchmark, each the median of a tenth of the samples in time order (the mean where there are several groups), plus mean/median/stddev/cv aggregates; counters give median, min, p25, p75, relative stdev, samples, groups (with each group's level and share), precise, pct_of_roofline, err/bound of the check (and err_probable_ratio for float sums; beyond 1 the row is an IMPROBABLE failure), the GPU's idle time before it, and NVML clocks where available. cpu_time is not a measurement. Names: family/variant/size/{hot,cold}, /devN with --device all; they are permanent. Largest sizes run first; progress goes to stderr.

Exit status: 0 every benchmark ran and gave the right answer; 1 a wrong answer, a kernel that failed, or a validation message; 3 infrastructure (no Vulkan device, a device lost, the results server unreachable or failing); 4 usage or configuration (a bad flag, an unknown device, filters or sizes that select nothing, an output file that cannot be written, a token the server refuses), found before any GPU work. (2 is ci/gpu-runner.sh's: the server's verdict failed.)
)";

// CLI11's help with every option's description wrapped to the terminal beside the option column.
class WrappingFormatter : public CLI::Formatter {
 public:
  explicit WrappingFormatter(size_t columns) : columns_(columns) { column_width(30); }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string text;
    for (const auto& line : wrap_words(CLI::Formatter::make_option_desc(opt), columns_ - 31)) text += line + "\n";
    if (!text.empty()) text.pop_back();
    return text;
  }

 private:
  size_t columns_;
};

// kBenchmarkFlagsHelp wrapped to `columns`: lines that start with spaces (flag lists) are kept as written.
std::string wrapped_footer(size_t columns) {
  std::istringstream in(kBenchmarkFlagsHelp);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.starts_with("  ") || line.empty()) {
      out += line + "\n";
      continue;
    }
    for (const auto& part : wrap_words(line, columns)) out += part + "\n";
  }
  return out;
}

// Ends the process without destructors or the driver's teardown: after a hang the device's work may still run,
// and lavapipe, for one, waits for it at exit (minutes for a million-boid dispatch). Every result is written.
[[noreturn]] void exit_leaving_the_driver(int status) {
  std::cout.flush();
  std::cerr << "shaderwatch-bench: a device was lost or hung; exiting without waiting for its work" << std::endl;
  std::_Exit(status);
}

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

int main(int argc, char** argv) {
  const size_t columns = terminal_columns();
  CLI::App app{"", "shaderwatch-bench"};
  std::string about;
  for (const auto& line : wrap_words(
           "shaderwatch-bench: runs the kernel catalog on a Vulkan device (the GPU; lavapipe where there is none), "
           "times every kernel on the GPU and checks every result against a CPU reference. The catalog: parallel "
           "reductions (luminance sums, log-average luminance and statistics of an image; boids averages and "
           "min/max) and post-processing (colour-space conversions, ten tone mapping operators, bright pass, local "
           "gamma, fused pipelines, Gaussian blur, depth of field), each in seed-faithful and modern variants "
           "(--list-kernels). With no mode flag it benchmarks every kernel at every size, hot and cold.",
           columns))
    about += line + "\n";
  app.description(about);
  app.formatter(std::make_shared<WrappingFormatter>(columns));
  app.footer(wrapped_footer(columns));
  bool do_list_devices = false, do_list_kernels = false, do_list_sources = false, do_check = false, validation = false, quick = false;
  std::string device_selector, filter = ".*", sizes, images_dir;
  uint64_t seed = 0;
  app.add_flag("--list-devices", do_list_devices, "List every Vulkan device (index, name, type, driver, API, subgroup)");
  app.add_flag("--list-kernels", do_list_kernels, "List every catalog kernel, its stable name first");
  app.add_flag("--list-sources", do_list_sources,
               "List every catalog kernel's name, then the kernels/ files it is built from (its shaders and what "
               "they #include), space-separated");
  app.add_flag("--check", do_check,
               "Run every kernel at the test sizes and inputs, print the correctness table; exit 1 on any "
               "unexpected failure (FAIL, IMPROBABLE: a sum beyond its probabilistic bound, ERROR)");
  // An empty value would silently mean the default.
  const auto non_empty = [](const std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); };
  app.add_option("--device", device_selector,
                 "Device index or name substring, or 'all' (benchmark only) (default: first discrete GPU, else "
                 "integrated, else CPU)")
      ->check(non_empty);
  app.add_option("--seed", seed, "Seed for the random inputs (default: random, printed)")
      ->check([](const std::string& text) -> std::string {
        // A leading minus would wrap around to a huge seed: only plain digits.
        const bool digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
        return digits ? "" : "'" + text + "' is not a whole number from 0 to 2^64-1";
      });
  app.add_option("--filter", filter, "Only kernels whose name matches this regular expression");
  app.add_option("--sizes", sizes, "Benchmark sizes, comma-separated: WxH for images, N for boids (default "
                                   "1280x720,1920x1080,3840x2160,7680x4320,4096,1048576)")
      ->check(non_empty);
  app.add_option("--write-images", images_dir,
                 "Write each tone-mapping operator's output on the HDR test image, the CoC image, the depth-of-field "
                 "input and composite, and a contact sheet as PNG into this directory (created if missing), then exit");
  app.add_flag("--quick", quick, "Benchmark preset for CI on lavapipe: small sizes, few samples");
  bool gbench_console = false;
  app.add_flag("--gbench-console", gbench_console,
               "On the console, Google Benchmark's own table (four aggregate rows per benchmark) instead of the report");
  uint64_t flush_mib = 0;
  app.add_option("--cold-flush-mib", flush_mib,
                 "MiB the cold mode reads before each timed dispatch to evict the caches (default 256; --quick 8)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{4096}));
  std::vector<std::string> expectation_files;
  CheckPolicy policy;
  app.add_option("--expectations", expectation_files,
                 "A JSON file of expectations for this runner's devices and drivers (the format of "
                 "kernels/expectations.json): per device and driver glob and kernel glob, an expected failure "
                 "(XFAIL; XPASS when it passes), a flaky kernel (its check rerun up to N times: FLAKE when a rerun "
                 "passes) or a skip, with a reason. Repeatable; the built-in kernels/expectations.json (the "
                 "negative control) comes first, and the first matching entry applies");
  app.add_option("--gpu-timeout", policy.gpu_timeout_s,
                 "Seconds one submission may take (default 600); past that the device counts as hung: nothing more "
                 "runs on it, its remaining kernels are reported as not run (ERROR), other devices go on")
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--repeat", policy.repeat,
                 "With --check: run each case this many times on one setup; every run must pass and give the bits of "
                 "the first (a race shows as runs that differ)")
      ->check(CLI::Range(1u, 100000u));
  app.add_option("--corrupt-output", policy.corrupt_output,
                 "For testing CI itself: overwrite the output of the kernels matching this glob with wrong values "
                 "before their check, so a job can be shown to fail on a wrong answer");
  std::string kernels_dir;
  app.add_option("--kernels-dir", kernels_dir,
                 "Compile the kernels from this directory (a copy of kernels/, edited) instead of the sources built into "
                 "the binary: try a shader change without rebuilding, or run a mutant (ci/mutation-test.py); not with --post")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--validation", validation, "Enable the Khronos validation layer; any message fails the run");
  PostOptions post;
  app.add_option("--post", post.url,
                 "After benchmarking, upload --benchmark_out's JSON to this results server (e.g. http://results:8080; "
                 "token in SHADERWATCH_TOKEN), retrying on no answer or 5xx. The server and the token are tried before any GPU "
                 "work (exit 3: no answer; 4: the token is refused); exit 3 when the results cannot be posted");
  app.add_option("--run-id", post.run_id, "With --post: unique run id (re-posting it is a no-op)")->envname("SHADERWATCH_RUN_ID");
  app.add_option("--commit", post.commit, "With --post: the commit this run measured")->envname("SHADERWATCH_COMMIT");
  app.add_option("--branch", post.branch, "With --post: branch (default: the server's main branch)")
      ->envname("SHADERWATCH_BRANCH");
  app.add_option("--merge-base", post.merge_base, "With --post, for another branch: the main commit it forked from")
      ->envname("SHADERWATCH_MERGE_BASE");
  app.add_option("--runner", post.runner, "With --post: the runner (machine) name")->envname("SHADERWATCH_RUNNER");
  app.add_option("--job-url", post.job_url, "With --post: the CI job's URL")->envname("SHADERWATCH_JOB_URL");
  app.add_option("--post-attempts", post.attempts, "With --post: tries in all (1 s, 2 s, 4 s, ... apart)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();

  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << app.help();
      return 0;
    }
  }
  std::optional<double> min_time;
  // The file reporter is ours (clean names), so its format is read here; json as Google Benchmark's default.
  std::string out_format, out_file;
  try {
    check_benchmark_flags(argc, argv);
    min_time = benchmark_min_time(argc, argv);
    if (flag_value(argc, argv, "--benchmark_out")) {
      out_file = *flag_value(argc, argv, "--benchmark_out");
      out_format = flag_value(argc, argv, "--benchmark_out_format").value_or("json");
      make_file_reporter(out_format);  // an unknown format fails here, before any GPU work
      check_output_file_writable(out_file);
    }
  } catch (const std::exception& e) {
    std::cerr << "shaderwatch-bench: " << e.what() << "\n";
    return kExitUsage;
  }
  // Only the console format gets the report; json and csv on stdout are Google Benchmark's.
  const bool report_for_people = flag_value(argc, argv, "--benchmark_format").value_or("console") == "console";
  benchmark::Initialize(&argc, argv);  // takes its --benchmark_* flags out of argv
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints CLI11's message
    return kExitUsage;
  }
  if (policy.repeat > 1 && !do_check) {
    std::cerr << "shaderwatch-bench: --repeat goes with --check\n";
    return kExitUsage;
  }
  if (!post.url.empty()) {
    if (const char* token = std::getenv("SHADERWATCH_TOKEN")) post.token = token;
    std::string problem = post_options_problem(post, out_file, out_format);
    if (problem.empty() && (do_check || do_list_devices || do_list_kernels || do_list_sources || !images_dir.empty()))
      problem = "--post goes with the benchmark mode, not --check, --list-* or --write-images";
    // Times of edited kernels would join the series of the built-in ones, under the same revision.
    if (problem.empty() && !kernels_dir.empty()) problem = "--post does not go with --kernels-dir: post the built-in kernels";
    if (!problem.empty()) {
      std::cerr << "shaderwatch-bench: " << problem << "\n";
      return kExitUsage;
    }
  }
  std::regex filter_re;
  try {
    filter_re = std::regex(filter);
  } catch (const std::regex_error& e) {
    std::cerr << "shaderwatch-bench: --filter '" << filter << "' is not a valid regular expression: " << e.what() << "\n";
    return kExitUsage;
  }
  const bool matches_any = std::any_of(catalog().begin(), catalog().end(),
                                       [&](const KernelSpec& k) { return std::regex_search(k.name, filter_re); });
  if (!matches_any) {
    std::cerr << "shaderwatch-bench: --filter '" << filter << "' matched no kernel (see --list-kernels)\n";
    return kExitUsage;
  }
  BenchmarkOptions options = quick ? quick_benchmark_options() : default_benchmark_options();
  try {
    if (!sizes.empty()) apply_sizes(options, sizes);
    for (const auto& file : expectation_files) policy.expectations.add_file(file);
    if (!policy.corrupt_output.empty() &&
        std::none_of(catalog().begin(), catalog().end(), [&](const KernelSpec& k) { return policy.corrupts(k.name); }))
      throw std::invalid_argument("--corrupt-output '" + policy.corrupt_output + "' matches no kernel (see --list-kernels)");
    options.filter = filter_re;
    const bool benchmark_mode = !do_check && !do_list_devices && !do_list_kernels && !do_list_sources && images_dir.empty();
    if (benchmark_mode && selected_benchmarks(options).empty())
      throw std::invalid_argument("--filter '" + filter + "', --sizes and --benchmark_filter together select no benchmark: "
                                  "a kernel's sizes are WxH for luminance and post-processing, a count for boids");
  } catch (const std::exception& e) {
    std::cerr << "shaderwatch-bench: " << e.what() << "\n";
    return kExitUsage;
  }
  // The results server answers and takes the token before any GPU work, not after it.
  if (!post.url.empty()) {
    const auto check = check_post_server(post);
    if (!check.problem.empty()) std::cerr << "shaderwatch-bench: " << check.problem << "\n";
    if (check.status != kExitPass) return check.status;
  }
  if (do_list_kernels) {
    for (const auto& k : catalog()) std::cout << k.name << "  " << k.description << "\n";
    if (!do_list_devices && !do_check) return 0;
  }
  if (do_list_sources) {
    for (const auto& k : catalog()) {
      std::cout << k.name;
      for (const auto& file : kernel_source_files(k)) std::cout << " " << file;
      std::cout << "\n";
    }
    if (!do_list_devices && !do_check) return 0;
  }
  if (seed == 0) seed = std::random_device{}() | 1;
  if (!kernels_dir.empty()) use_kernel_sources_from(kernels_dir);

  try {
    Instance instance(validation);
    if (do_list_devices) {
      list_devices(instance);
      if (!do_check) return 0;
    }
    int failures = 0;
    if (!images_dir.empty()) {
      Device device(instance, instance.select(device_selector == "all" ? "" : device_selector));
      ShaderCompiler compiler;
      for (const auto& path : write_images(device, compiler, images_dir, 640, 360)) std::cout << "wrote " << path << "\n";
      return 0;
    }
    if (do_check) {
      if (device_selector == "all") throw UsageError("--check takes one device: give an index or a name");
      Device device(instance, instance.select(device_selector));
      std::cout << "device: " << device.info().name << " (" << device.info().driver_name << " "
                << device.info().driver_version_string() << ", Vulkan " << device.info().api_version_string()
                << ", subgroup " << device.info().subgroup_size << ")\nseed: " << seed << "\n\n";
      ShaderCompiler compiler;
      print_check_header(std::cout);
      const auto summary = run_check_suite(device, compiler, filter_re, seed, default_check_cases(), policy,
                                           [](const CheckRow& row) { print_check_row(std::cout, row); });
      print_check_footer(std::cout, summary);
      failures = static_cast<int>(summary.unexpected_failures());
    } else {
      std::vector<uint32_t> devices;
      if (device_selector == "all") {
        for (const auto& d : instance.devices()) devices.push_back(d.index);
      } else {
        devices.push_back(instance.select(device_selector));
      }
      options.seed = seed;
      options.harness_revision = kHarnessRevision;
      options.policy = policy;
      if (min_time) options.sampling.stop.min_gpu_seconds = *min_time;
      if (flush_mib) options.sampling.flush_bytes = flush_mib << 20;
      std::cerr << "seed: " << seed << "\n";
      const BenchmarkRun run = measure_benchmarks(instance, devices, options);
      const bool people = report_for_people && !gbench_console;
      failures = report_benchmarks(run.results, out_format, /*display=*/!people);
      const ReportStyle style{stdout_wants_color(), columns};
      if (people) {
        print_benchmark_table(std::cout, run.results, style);
      } else if (failures) {
        print_failures(std::cerr, run.results);
      }
      // Posted even with wrong answers: the server records the correctness failures.
      const bool posted = post.url.empty() || post_results(post, out_file);
      const auto messages = instance.validation_log().take();
      for (const auto& m : messages) std::cerr << m << "\n";
      // A lost device is the machine's failure, whatever its rows say; then the post; then the answers.
      const int status = Device::any_lost() || !posted                ? kExitInfrastructure
                         : failures || !messages.empty()             ? kExitWrongAnswer
                                                                      : kExitPass;
      if (people) {
        ReportFacts facts{run.devices, run.seconds, seed, &run.timing, "", status, exit_status_meaning(status)};
        if (!messages.empty() && status == kExitWrongAnswer)
          facts.exit_meaning = std::to_string(messages.size()) + " validation-layer messages (above)" +
                               (failures ? " and " + std::to_string(failures) + " wrong answers or failed kernels" : "");
        facts.saved = out_file.empty() ? "results not saved: add --benchmark_out=FILE (and --post URL to send them to "
                                         "a results server)"
                                       : "results: " + out_file + " (" + out_format + ")" +
                                             (post.url.empty() ? "" : posted ? ", posted to " + post.url
                                                                             : ", NOT posted to " + post.url);
        print_closing_summary(std::cout, run.results, facts, style);
      }
      if (Device::any_lost()) exit_leaving_the_driver(status);
      return status;
    }
    const auto messages = instance.validation_log().take();
    for (const auto& m : messages) std::cerr << m << "\n";
    const int status = failures == 0 && messages.empty() ? kExitPass : kExitWrongAnswer;
    if (Device::any_lost()) exit_leaving_the_driver(status);
    return status;
  } catch (const UsageError& e) {
    std::cerr << "shaderwatch-bench: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "shaderwatch-bench: " << e.what() << "\n";
    if (Device::any_lost()) exit_leaving_the_driver(kExitInfrastructure);
    return kExitInfrastructure;
  }
}
