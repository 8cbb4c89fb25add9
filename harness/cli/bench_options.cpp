#include "cli/bench_options.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "common/text_wrap.h"
#include "families/kernel_family.h"
#include "pack/kernel_pack.h"
#include "pack/pack_limits.h"

namespace shaderwatch {

namespace {

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

Each benchmark: a warm-up until the clocks are up (longer after the GPU sat idle), then batches of timed dispatches until a stopping rule holds: relative stdev under 0.5% with the minimum GPU time, the noise estimate or the batch medians settled (never while drifting or while the samples form two or more groups), the groups' shares settled ("multi-group"), or 15 s ("precision-not-reached"). The JSON has 10 Google Benchmark repetitions per benchmark, each the median of a tenth of the samples in time order (the mean where there are several groups), plus mean/median/stddev/cv aggregates; counters give median, min, p25, p75, relative stdev, samples, groups (with each group's level and share), precise, pct_of_roofline, err/bound of the check (and err_probable_ratio for float sums; beyond 1 the row is an IMPROBABLE failure), the GPU's idle time before it, and NVML clocks where available. cpu_time is not a measurement. Every row says its status in sw_status (pass, flake, skip, xfail, xpass, unsupported, fail). Names: family/variant/size/{hot,cold}; they are permanent. Largest sizes run first; progress goes to stderr.

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

}  // namespace

void add_bench_options(CLI::App& app, BenchArgs& a, size_t columns) {
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
  app.add_flag("--list-devices", a.list_devices, "List every Vulkan device (index, name, type, driver, API, subgroup)");
  app.add_flag("--list-kernels", a.list_kernels,
               "List every catalog kernel, its stable name first; with --device, what that device's driver compiled of "
               "each (--filter: some): SPIR-V hash, and per pipeline each executable's subgroup size and statistics, "
               "where the driver reports them (VK_KHR_pipeline_executable_properties)");
  app.add_flag("--list-sources", a.list_sources,
               "List every catalog kernel's name, then the kernels/ files it is built from (its shaders and what "
               "they #include), space-separated");
  app.add_flag("--check", a.check,
               "Run every kernel at the test sizes and inputs, print the correctness table; exit 1 on any "
               "unexpected failure (FAIL, IMPROBABLE: a sum beyond its probabilistic bound, ERROR)");
  // An empty value would silently mean the default.
  const auto non_empty = [](const std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); };
  app.add_option("--device", a.device_selector,
                 "Device index or name substring, or 'all' (benchmark only: one document per device, FILE-devN.json beside "
                 "--benchmark_out=FILE.json, each posted as run <run id>-devN) (default: first discrete GPU, else "
                 "integrated, else CPU)")
      ->check(non_empty);
  app.add_option("--seed", a.seed, "Seed for the random inputs (default: random, printed)")
      ->check([](const std::string& text) -> std::string {
        // A leading minus would wrap around to a huge seed: only plain digits, and at most 2^64-1 (the parser
        // clamps 2^64 itself to that, where it refuses larger numbers).
        const std::string_view max = "18446744073709551615";
        const std::string_view digits = std::string_view(text).substr(std::min(text.find_first_not_of('0'), text.size()));
        const bool whole = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
                           (digits.size() < max.size() || (digits.size() == max.size() && digits <= max));
        return whole ? "" : "'" + text + "' is not a whole number from 0 to 2^64-1";
      });
  app.add_option("--filter", a.filter, "Only kernels whose name matches this regular expression");
  app.add_option("--sizes", a.sizes, "Benchmark sizes, comma-separated: WxH for images, N for boids (default "
                                   "1280x720,1920x1080,3840x2160,7680x4320,4096,1048576)")
      ->check(non_empty);
  app.add_option("--write-images", a.images_dir,
                 "Write each tone-mapping operator's output on the HDR test image, the CoC image, the depth-of-field "
                 "input and composite, and a contact sheet as PNG into this directory (created if missing), then exit");
  app.add_flag("--quick", a.quick, "Benchmark preset for CI on lavapipe: small sizes, few samples");
  app.add_flag("--gbench-console", a.gbench_console,
               "On the console, Google Benchmark's own table (four aggregate rows per benchmark) instead of the report");
  app.add_option("--cold-flush-mib", a.flush_mib,
                 "MiB the cold mode reads before each timed dispatch to evict the caches (default 256; --quick 8)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{4096}));
  app.add_option("--expectations", a.expectation_files,
                 "A JSON file of expectations for this runner's devices and drivers (the format of "
                 "kernels/expectations.json): per device and driver glob and kernel glob, an expected failure "
                 "(XFAIL; XPASS when it passes), a flaky kernel (its check rerun up to N times: FLAKE when a rerun "
                 "passes) or a skip, with a reason. Repeatable; the built-in kernels/expectations.json (the "
                 "negative control) comes first, and the first matching entry applies");
  app.add_option("--gpu-timeout", a.policy.gpu_timeout_s,
                 "Seconds one submission may take (default 600); past that the device counts as hung: nothing more "
                 "runs on it, its remaining kernels are reported as not run (ERROR), other devices go on")
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--repeat", a.policy.repeat,
                 "With --check: run each case this many times on one setup; every run must pass and give the bits of "
                 "the first (a race shows as runs that differ)")
      ->check(CLI::Range(1u, 100000u));
  app.add_flag("--race", a.policy.race_delays,
               "With --check: build every kernel with race delays (kernels/race_delay.glsl): before each access to "
               "shared memory, subgroups wait a varying number of clock cycles, so a missing barrier shows as a "
               "wrong answer on a GPU, where subgroups otherwise keep so close in step that races hardly ever show. "
               "On a device without VK_KHR_shader_clock's subgroup clock (--list-devices says) the check runs without them "
               "and says so. Kernels are checked as usual; not for timing");
  app.add_option("--corrupt-output", a.policy.corrupt_output,
                 "For testing CI itself: overwrite the output of the kernels matching this glob with wrong values "
                 "before their check, so a job can be shown to fail on a wrong answer");
  app.add_option("--pack", a.packs,
                 "Add a kernel pack's kernels (a directory with pack.toml or pack.json and its GLSL or HLSL shaders; "
                 "README.md, 'Add your own kernel') to the catalog, named <pack>/<kernel>: run, checked, timed and "
                 "posted like the built-in ones. Repeatable. A pack is read and its shaders compiled before any GPU "
                 "work: any mistake in it exits 4, naming the file, line and key. A kernel checked by the pack's "
                 "reference shader needs the CPU Vulkan device (lavapipe) too, where the reference runs")
      ->check(CLI::ExistingDirectory);
  app.add_option("--kernels-dir", a.kernels_dir,
                 "Compile the kernels from this directory (a copy of kernels/, edited) instead of the sources built into "
                 "the binary: try a shader change without rebuilding, or run a mutant (ci/mutation-test.py); not with --post")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--validation", a.validation, "Enable the Khronos validation layer; any message fails the run");
  app.add_option("--post", a.post.url,
                 "After benchmarking, upload --benchmark_out's JSON to this results server (e.g. http://results:8080; "
                 "token in SHADERWATCH_TOKEN), retrying on no answer or 5xx. The server and the token are tried before any GPU "
                 "work (exit 3: no answer; 4: the token is refused); exit 3 when the results cannot be posted");
  app.add_option("--run-id", a.post.run_id, "With --post: unique run id (re-posting it is a no-op)")->envname("SHADERWATCH_RUN_ID");
  app.add_option("--commit", a.post.commit, "With --post: the commit this run measured")->envname("SHADERWATCH_COMMIT");
  app.add_option("--branch", a.post.branch, "With --post: branch (default: the server's main branch)")
      ->envname("SHADERWATCH_BRANCH");
  app.add_option("--merge-base", a.post.merge_base, "With --post, for another branch: the main commit it forked from")
      ->envname("SHADERWATCH_MERGE_BASE");
  app.add_option("--runner", a.post.runner, "With --post: the runner (machine) name")->envname("SHADERWATCH_RUNNER");
  app.add_option("--job-url", a.post.job_url, "With --post: the CI job's URL")->envname("SHADERWATCH_JOB_URL");
  app.add_flag("--gate", a.post.gate,
               "With --post: exit with the server's verdict on the posted run(s): 2 when it failed one (a slowdown, a "
               "regression, a correctness failure), 3 when it could not be read; a wrong answer here still exits 1");
  app.add_option("--post-attempts", a.post.attempts, "With --post: tries in all (1 s, 2 s, 4 s, ... apart)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
}

namespace {

// Reads each --pack into the catalog, and its expectations into `expectations` (after the built-in ones, before
// --expectations files); the problem with the first that cannot be read, or "".
std::string add_packs(const std::vector<std::string>& directories, Expectations& expectations) {
  ShaderCompiler compiler;
  for (const auto& dir : directories) {
    try {
      KernelPack pack = read_kernel_pack(dir, compiler);
      add_to_catalog(std::move(pack.kernels));
      if (pack.expectations.empty()) continue;
      // A pack's expectations speak for its own kernels: none may skip or excuse another's.
      Expectations own;
      own.add_file(pack.expectations);
      for (const Expectation& e : own.entries())
        for (const KernelSpec& k : catalog())
          if (k.name.rfind(pack.name + "/", 0) != 0 && glob_match(e.kernel, k.name))
            return "--pack " + dir + ": " + pack.expectations + ": entry '" + e.id + "' ('" + e.kernel + "') matches " +
                   k.name + ", not a kernel of the pack";
      expectations.add_file(pack.expectations);
    } catch (const std::exception& e) {
      return "--pack " + dir + ": " + e.what();
    }
  }
  return "";
}

}  // namespace

std::string pack_sizes_problem(const BenchArgs& a, const BenchmarkOptions& options, const std::regex& filter,
                               const DeviceInfo* device, const DeviceInfo* cpu) {
  for (const KernelSpec& spec : catalog()) {
    if (!std::regex_search(spec.name, filter)) continue;
    const KernelFamily& family = kernel_family(spec.family);
    std::vector<SizeSpec> sizes;
    if (a.check) {
      for (const CheckInput& input : family.check_inputs()) sizes.push_back(input.size);
      if (!spec.input_file.empty()) sizes.push_back(parse_size(family.size, spec.sizes.at(0)));
    } else {
      sizes = benchmark_sizes(spec, options);
    }
    for (const SizeSpec& size : sizes)
      if (std::string problem = pack_size_problem(spec, family.size, size, device, cpu); !problem.empty()) return problem;
  }
  return "";
}

std::string usage_problem(BenchArgs& a, const GbenchFlags& gbench, std::regex& filter_re, BenchmarkOptions& options) {
  if (std::string problem = add_packs(a.packs, a.policy.expectations); !problem.empty()) return problem;
  if (a.policy.repeat > 1 && !a.check) return "--repeat goes with --check";
  if (a.policy.race_delays && !a.check) return "--race goes with --check";
  if (a.post.gate && a.post.url.empty()) return "--gate goes with --post: it exits with the server's verdict on the posted run";
  if (!a.post.url.empty()) {
    if (const char* token = std::getenv("SHADERWATCH_TOKEN")) a.post.token = token;
    std::string problem = post_options_problem(a.post, gbench.out_file, gbench.out_format);
    if (problem.empty() && !a.benchmark_mode())
      problem = "--post goes with the benchmark mode, not --check, --list-* or --write-images";
    // Times of edited kernels would join the series of the built-in ones, under the same revision.
    if (problem.empty() && !a.kernels_dir.empty()) problem = "--post does not go with --kernels-dir: post the built-in kernels";
    if (!problem.empty()) return problem;
  }
  try {
    filter_re = std::regex(a.filter);
  } catch (const std::regex_error& e) {
    return "--filter '" + a.filter + "' is not a valid regular expression: " + e.what();
  }
  const bool matches_any = std::any_of(catalog().begin(), catalog().end(),
                                       [&](const KernelSpec& k) { return std::regex_search(k.name, filter_re); });
  if (!matches_any) return "--filter '" + a.filter + "' matched no kernel (see --list-kernels)";
  options = a.quick ? quick_benchmark_options() : default_benchmark_options();
  try {
    if (!a.sizes.empty()) apply_sizes(options, a.sizes);
    for (const auto& file : a.expectation_files) a.policy.expectations.add_file(file);
    if (!a.policy.corrupt_output.empty() &&
        std::none_of(catalog().begin(), catalog().end(), [&](const KernelSpec& k) { return a.policy.corrupts(k.name); }))
      return "--corrupt-output '" + a.policy.corrupt_output + "' matches no kernel (see --list-kernels)";
    options.filter = filter_re;
    if (std::string problem = pack_sizes_problem(a, options, filter_re); !problem.empty()) return problem;
    if (a.benchmark_mode() && selected_benchmarks(options).empty())
      return "--filter '" + a.filter + "', --sizes and --benchmark_filter together select no benchmark: "
             "a kernel's sizes are WxH for luminance and post-processing, a count for boids";
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace shaderwatch
