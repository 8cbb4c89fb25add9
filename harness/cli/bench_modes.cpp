#include "cli/bench_modes.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "suite/check_suite.h"
#include "families/kernel_family.h"
#include "suite/kernel_run.h"
#include "report/benchmark_report.h"
#include "common/exit_status.h"
#include "report/image_writer.h"
#include "report/post_results.h"
#include "report/result_documents.h"
#include "report/terminal_report.h"

namespace shaderwatch {

extern const char* const kHarnessRevision;

[[noreturn]] void exit_leaving_the_driver(int status) {
  std::cout.flush();
  std::cerr << "shaderwatch-bench: a device was lost or hung; exiting without waiting for its work" << std::endl;
  std::_Exit(status);
}

namespace {

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

// The validation layer's messages, printed; then the status: a wrong answer where there were any.
// Where the results went: the file, or each device's (FILE-dev<N>.json) where the run had several.
std::string saved_files(const std::string& out_file, const std::vector<ResultDocument>& documents) {
  if (documents.size() < 2) return out_file;
  std::string files;
  for (const auto& d : documents) files.append(files.empty() ? "" : ", ").append(d.path);
  return files;
}

int status_after_validation(Instance& instance, int failures) {
  const auto messages = instance.validation_log().take();
  for (const auto& m : messages) std::cerr << m << "\n";
  const int status = failures == 0 && messages.empty() ? kExitPass : kExitWrongAnswer;
  if (Device::any_lost()) exit_leaving_the_driver(status);
  return status;
}

}  // namespace

void list_devices(const Instance& instance) {
  for (const auto& d : instance.devices()) {
    std::cout << d.index << ": " << d.name << "\n"
              << "   type " << d.type_name() << ", vendor " << hex(d.vendor_id) << ", device " << hex(d.device_id)
              << "\n   driver " << d.driver_name << " (" << d.driver_info << "), version "
              << d.driver_version_string() << "\n   Vulkan " << d.api_version_string() << ", subgroup size "
              << d.subgroup_size;
    if (d.max_subgroup_size) std::cout << " (" << d.min_subgroup_size << "-" << d.max_subgroup_size << ")";
    if (d.compute_subgroup_size_control) std::cout << ", requirable in compute";
    std::cout << "\n   race delays (--check --race): "
              << (d.subgroup_clock ? "available" : "unavailable (no " VK_KHR_SHADER_CLOCK_EXTENSION_NAME " subgroup clock)") << "\n";
  }
}

namespace {

// The devices --device names: one, or every one for "all".
std::vector<uint32_t> selected_devices(const Instance& instance, const std::string& selector) {
  std::vector<uint32_t> indices;
  if (selector == "all") {
    for (const auto& d : instance.devices()) indices.push_back(d.index);
  } else {
    indices.push_back(instance.select(selector));
  }
  return indices;
}

// A pack kernel past a device's limits at a size this run uses, or its reference past the CPU device's (the one
// run/cpu_device.h opens: the loader's first), is refused before the device opens (exit 4).
void refuse_packs_past_limits(const Instance& instance, const BenchArgs& a, const BenchmarkOptions& options,
                              const std::regex& filter, const std::vector<uint32_t>& indices) {
  const DeviceInfo* cpu = nullptr;
  for (const DeviceInfo& d : instance.devices())
    if (!cpu && d.type == VK_PHYSICAL_DEVICE_TYPE_CPU) cpu = &d;
  for (const uint32_t index : indices)
    if (std::string problem = pack_sizes_problem(a, options, filter, &instance.devices().at(index), cpu); !problem.empty())
      throw UsageError(problem);
}

}  // namespace

int list_compiled_mode(Instance& instance, const BenchArgs& a, const std::regex& filter_re) {
  for (const uint32_t index : selected_devices(instance, a.device_selector)) {
    Device device(instance, index);
    std::cout << "device " << index << ": " << device.info().name << " (" << device.info().driver_name << " "
              << device.info().driver_version_string() << "): pipeline statistics "
              << (device.captures_pipeline_statistics() ? "captured" : "unavailable: " + device.why_no_pipeline_statistics())
              << "\n";
    ShaderCompiler compiler;
    for (const auto& spec : catalog()) {
      if (!std::regex_search(spec.name, filter_re)) continue;
      const KernelFamily& family = kernel_family(spec.family);
      // Small, for speed; a kernel with its own input file at the file's size.
      const bool file = !spec.input_file.empty();
      const SizeSpec size = file ? parse_size(family.size, spec.sizes.at(0))
                                 : family.size == SizeKind::Image ? SizeSpec{64, 64, 0} : SizeSpec{0, 0, 4096};
      std::cout << spec.name;
      try {
        const Problem problem = kernel_problem(spec, file ? InputKind::File : family.benchmark_input, size, 1);
        const KernelRun run(device, compiler, spec, problem);
        std::cout << "  spirv:" << run.spirv_hash() << " input:" << input_identity(problem) << "\n";
        const auto& pipelines = *run.compiled();
        for (size_t p = 0; p < pipelines.size(); ++p) {
          for (const PipelineExecutable& e : pipelines[p]) {
            std::cout << "  pipeline " << p << " " << e.name << " (subgroup " << e.subgroup_size << "):";
            for (const PipelineStatistic& s : e.statistics) std::cout << " " << s.name << "=" << s.value_text();
            std::cout << "\n";
          }
        }
      } catch (const UnsupportedError& e) {
        std::cout << "  unsupported on this device: " << e.what() << "\n";
      } catch (const std::exception& e) {  // a pack kernel whose formulas give no count at this size
        std::cout << "  not set up at " << size_text(family.size, size) << ": " << e.what() << "\n";
      }
    }
  }
  return 0;
}

int write_images_mode(Instance& instance, const BenchArgs& a) {
  Device device(instance, instance.select(a.device_selector == "all" ? "" : a.device_selector));
  ShaderCompiler compiler;
  for (const auto& path : write_images(device, compiler, a.images_dir, 640, 360)) std::cout << "wrote " << path << "\n";
  return 0;
}

int check_mode(Instance& instance, const BenchArgs& a, const std::regex& filter_re) {
  if (a.device_selector == "all") throw UsageError("--check takes one device: give an index or a name");
  const uint32_t index = instance.select(a.device_selector);
  refuse_packs_past_limits(instance, a, BenchmarkOptions{}, filter_re, {index});
  // A device without the subgroup clock is checked without the delays, and says so: a CI job asking for them on
  // every runner still checks every kernel on this one.
  const bool race = a.policy.race_delays && instance.devices().at(index).subgroup_clock;
  Device device(instance, index, DeviceWants{.shader_clock = race});
  std::cout << "device: " << device.info().name << " (" << device.info().driver_name << " "
            << device.info().driver_version_string() << ", Vulkan " << device.info().api_version_string()
            << ", subgroup " << device.info().subgroup_size << ")\nseed: " << a.seed << "\n";
  if (race) std::cout << "race delays: on (kernels/race_delay.glsl: subgroups wait varying clock cycles before shared memory)\n";
  if (a.policy.race_delays && !race) {
    std::cout << "race delays: unavailable on this device (no " VK_KHR_SHADER_CLOCK_EXTENSION_NAME
                 " subgroup clock): checked without them\n";
  }
  std::cout << "\n";
  ShaderCompiler compiler(race ? Defines{{"RACE_DELAYS", "1"}} : Defines{});
  const std::vector<CheckCase> cases = default_check_cases(device.info());
  print_dispatch_cases(std::cout, cases, filter_re);
  print_check_header(std::cout);
  const auto summary = run_check_suite(device, compiler, filter_re, a.seed, cases, a.policy,
                                       [](const CheckRow& row) { print_check_row(std::cout, row); });
  print_check_footer(std::cout, summary);
  return status_after_validation(instance, static_cast<int>(summary.unexpected_failures()));
}

int benchmark_mode(Instance& instance, const BenchArgs& a, BenchmarkOptions options, const GbenchFlags& gbench,
                   size_t columns) {
  const std::vector<uint32_t> devices = selected_devices(instance, a.device_selector);
  refuse_packs_past_limits(instance, a, options, options.filter, devices);
  options.seed = a.seed;
  options.harness_revision = kHarnessRevision;
  options.policy = a.policy;
  if (gbench.min_time) options.sampling.stop.min_gpu_seconds = *gbench.min_time;
  if (a.flush_mib) options.sampling.flush_bytes = a.flush_mib << 20;
  std::cerr << "seed: " << a.seed << "\n";
  const BenchmarkRun run = measure_benchmarks(instance, devices, options);
  const bool people = gbench.console && !a.gbench_console;
  const ReportedBenchmarks reported = report_benchmarks(run.results, gbench.out_format, /*display=*/!people);
  const int failures = reported.unexpected_failures;
  const ReportStyle style{stdout_wants_color(), columns};
  if (people) {
    print_benchmark_table(std::cout, run.results, style);
  } else if (failures) {
    print_failures(std::cerr, run.results);
  }
  std::vector<ResultDocument> documents;
  if (gbench.out_format == "json" && !gbench.out_file.empty()) {
    documents = write_result_documents(gbench.out_file, reported.out_text, run.results, run.device_contexts);
  } else if (!gbench.out_file.empty()) {
    write_out_file(gbench.out_file, reported.out_text);
  }
  // Posted even with wrong answers: the server records the correctness failures.
  const PostOutcome post = a.post.url.empty() ? PostOutcome{} : post_results(a.post, documents);
  const bool posted = post.posted;
  const auto messages = instance.validation_log().take();
  for (const auto& m : messages) std::cerr << m << "\n";
  // A lost device is the machine's failure, whatever its rows say; then the post; then the answers.
  const int status = Device::any_lost() ? kExitInfrastructure
                     : status_after_post(failures || !messages.empty() ? kExitWrongAnswer : kExitPass, a.post, post);
  if (people) {
    ReportFacts facts{run.devices, run.seconds, a.seed, &run.timing, "", status, exit_status_meaning(status)};
    if (!messages.empty() && status == kExitWrongAnswer)
      facts.exit_meaning = std::to_string(messages.size()) + " validation-layer messages (above)" +
                           (failures ? " and " + std::to_string(failures) + " wrong answers or failed kernels" : "");
    facts.saved = gbench.out_file.empty()
                      ? "results not saved: add --benchmark_out=FILE (and --post URL to send them to a results server)"
                      : "results: " + saved_files(gbench.out_file, documents) + " (" + gbench.out_format + ")" +
                            (a.post.url.empty() ? "" : posted ? ", posted to " + a.post.url : ", NOT posted to " + a.post.url);
    print_closing_summary(std::cout, run.results, facts, style);
  }
  if (Device::any_lost()) exit_leaving_the_driver(status);
  return status;
}

}  // namespace shaderwatch
