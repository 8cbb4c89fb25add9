#include "suite/benchmark_suite.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <sstream>
#include <thread>

#include "families/kernel_family.h"
#include "common/exit_status.h"
#include "suite/check_queue.h"
#include "families/kernel_input.h"
#include "suite/kernel_run.h"
#include "run/nvml_monitor.h"
#include "vulkan/pipelines.h"
#include "run/progress.h"
#include "run/bandwidth_probes.h"
#include "run/roofline.h"
#include "suite/suite_inputs.h"
#include "suite/suite_timing.h"

namespace shaderwatch {

BenchmarkOptions default_benchmark_options() {
  BenchmarkOptions o;
  o.image_sizes = {{1280, 720, 0}, {1920, 1080, 0}, {3840, 2160, 0}, {7680, 4320, 0}};
  o.boids_counts = {{0, 0, 4096}, {0, 0, 1048576}};
  return o;
}

BenchmarkOptions quick_benchmark_options() {
  BenchmarkOptions o;
  o.image_sizes = {{320, 180, 0}, {1280, 720, 0}};
  o.sizes_chosen = true;
  o.boids_counts = {{0, 0, 4096}, {0, 0, 65536}};
  o.sampling.stop.min_samples = 10;
  o.sampling.stop.min_gpu_seconds = 0.01;
  o.sampling.stop.max_wall_seconds = 0.3;
  o.sampling.warmup_seconds = 0.01;
  o.sampling.max_warmup_seconds = 0.01;
  o.sampling.flush_bytes = uint64_t{8} << 20;
  o.peak_copy_bytes = uint64_t{32} << 20;
  return o;
}

std::vector<SizeSpec> benchmark_sizes(const KernelSpec& spec, const BenchmarkOptions& options) {
  const SizeKind kind = kernel_family(spec.family).size;
  // A kernel with an input file has one size, its file's; otherwise its own sizes unless the run chose.
  if (spec.sizes.empty() || (options.sizes_chosen && spec.input_file.empty())) return options.sizes(kind);
  std::vector<SizeSpec> out;
  for (const auto& text : spec.sizes) out.push_back(parse_size(kind, text));
  return out;
}

void apply_sizes(BenchmarkOptions& options, const std::string& list) {
  options.sizes_chosen = true;
  options.image_sizes.clear();
  options.boids_counts.clear();
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.find('x') != std::string::npos) {
      options.image_sizes.push_back(parse_size(SizeKind::Image, item));
    } else {
      options.boids_counts.push_back(parse_size(SizeKind::Count, item));
    }
    const auto& s = item.find('x') != std::string::npos ? options.image_sizes.back() : options.boids_counts.back();
    if (s.items() == 0) throw std::invalid_argument("--sizes: empty size '" + item + "'");
  }
  if (options.image_sizes.empty() && options.boids_counts.empty()) throw std::invalid_argument("--sizes: no sizes given");
}

namespace {

std::string hex(uint64_t v, int width = 4) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", width, static_cast<unsigned long long>(v));
  return buf;
}

std::string uuid(const std::array<uint8_t, VK_UUID_SIZE>& u) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < u.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", u[i]);
    s += buf;
    if (i == 3 || i == 5 || i == 7 || i == 9) s += '-';
  }
  return s;
}

// One open device with what every benchmark on it shares.
struct DeviceBench {
  std::unique_ptr<Device> device;
  std::unique_ptr<ShaderCompiler> compiler;
  std::unique_ptr<GpuTimer> timer;
  std::unique_ptr<NvmlMonitor> nvml;
  Bandwidths bandwidth;
  std::string suffix;  // "" with one device, "/dev<N>" with several
};

// The roofline's bandwidth probes over two large buffers, medians of cold samples.
Bandwidths measure_bandwidth(DeviceBench& d, const BenchmarkOptions& options) {
  const uint64_t bytes = std::min<uint64_t>(options.peak_copy_bytes, d.device->info().max_storage_buffer_range);
  return measure_bandwidths(*d.device, *d.compiler, bytes, [&](const std::function<void(VkCommandBuffer)>& timed) {
    return d.timer->sample([](VkCommandBuffer) {}, timed, true, options.sampling).stats.median;
  });
}

// What the device's results document says of it (RunDevice::context).
std::vector<std::pair<std::string, std::string>> device_context(const DeviceBench& d) {
  std::vector<std::pair<std::string, std::string>> context;
  const DeviceInfo& i = d.device->info();
  auto add = [&](const std::string& key, const std::string& value) { context.emplace_back(key, value); };
  add(contract::kDeviceName, i.name);
  add(contract::kVendorId, hex(i.vendor_id));
  add(contract::kDeviceId, hex(i.device_id));
  add(contract::kDeviceType, i.type_name());
  add(contract::kDriverId, std::to_string(static_cast<int>(i.driver_id)));
  add(contract::kDriverName, i.driver_name);
  add(contract::kDriverInfo, i.driver_info);
  add(contract::kDriverVersion, i.driver_version_string());
  add(contract::kDriverVersionRaw, hex(i.driver_version, 8));
  add(contract::kApiVersion, i.api_version_string());
  add(contract::kDeviceUuid, uuid(i.device_uuid));
  add(contract::kDriverUuid, uuid(i.driver_uuid));
  add(contract::kSubgroupSize, std::to_string(i.subgroup_size));
  if (i.max_subgroup_size) {
    add("subgroup_size_min", std::to_string(i.min_subgroup_size));
    add("subgroup_size_max", std::to_string(i.max_subgroup_size));
  }
  add("timestamp_period_ns", std::to_string(i.timestamp_period));
  auto gbs = [](double bytes_per_second) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", bytes_per_second / 1e9);
    return std::string(text);
  };
  add("peak_bandwidth_gbs", gbs(d.bandwidth.copy()));
  add("peak_method", "max of copy.comp (grid-stride or tiled) and vkCmdCopyBuffer, " +
                         std::to_string(d.bandwidth.bytes >> 20) + " MiB, median cold sample, bytes read + written");
  add("copy_kernel_gbs", gbs(d.bandwidth.copy_kernel));
  add("copy_buffer_gbs", gbs(d.bandwidth.copy_buffer));
  add("read_only_gbs", gbs(d.bandwidth.read_only));
  add("write_gbs", gbs(d.bandwidth.write));
  add("roofline_method", "bytes read and written per dispatch (catalog) at these rates: pairs at the copy rate, "
                         "the rest at the read-only or write rate (harness/run/roofline.h)");
  add("nvml", d.nvml->available() ? "clocks per benchmark" : "unavailable: " + d.nvml->why_unavailable());
  add(contract::kPipelineStatistics, d.device->captures_pipeline_statistics()
                                         ? "captured"
                                         : "unavailable: " + d.device->why_no_pipeline_statistics());
  return context;
}

// Largest sizes first, and within a size the families with the costliest checks (reported in catalog order):
// those checks take longest and overlap the rest, and smaller readbacks reuse their memory.
bool measured_before(const KernelSpec& a, const SizeSpec& size_a, const KernelSpec& b, const SizeSpec& size_b) {
  if (size_a.items() != size_b.items()) return size_a.items() > size_b.items();
  return kernel_family(a.family).check_ns_per_item > kernel_family(b.family).check_ns_per_item;
}

// Each input uploaded once per device for every kernel that reads the same (KernelInput); the last KernelRun
// kept so a kernel's hot and cold benchmarks reuse its buffers. Shared: a check still running on a worker thread
// keeps the run's CPU side (inputs, reference) alive after its device side is released.
class RunCache {
 public:
  std::shared_ptr<const KernelInput> input(DeviceBench& d, const KernelSpec& spec, const Problem& problem,
                                           const DerivedInput& derived) {
    // The suite runs the largest sizes first: an input of another size is not needed again.
    std::erase_if(inputs_, [&](const auto& entry) { return std::get<1>(entry.first)->items() != problem.items(); });
    const auto key = std::make_tuple(&d, &problem, kernel_input_variant(spec));
    auto it = inputs_.find(key);
    if (it == inputs_.end()) it = inputs_.emplace(key, upload_kernel_input(*d.device, spec, problem, derived)).first;
    return it->second;
  }
  // The last run made, if it is this kernel's on this problem (its cold mode after its hot one); else nullptr.
  std::shared_ptr<KernelRun> last(const DeviceBench& d, const KernelSpec& spec, const Problem& problem) const {
    const bool same = current_ && current_device_ == &d && current_spec_ == &spec && current_problem_ == &problem;
    return same ? current_ : nullptr;
  }
  // Frees the last run's device memory, here, even while a worker still checks it.
  void release_last() {
    if (current_) current_->release_device();
    current_.reset();
  }
  std::shared_ptr<KernelRun> make(DeviceBench& d, const KernelSpec& spec, const Problem& problem,
                                  std::shared_ptr<const KernelInput> input) {
    current_ = std::make_shared<KernelRun>(*d.device, *d.compiler, spec, problem, 0, std::move(input));
    current_device_ = &d;
    current_spec_ = &spec;
    current_problem_ = &problem;
    return current_;
  }

 private:
  std::map<std::tuple<const DeviceBench*, const Problem*, int>, std::shared_ptr<const KernelInput>> inputs_;
  std::shared_ptr<KernelRun> current_;
  const DeviceBench* current_device_ = nullptr;
  const KernelSpec* current_spec_ = nullptr;
  const Problem* current_problem_ = nullptr;
};

// Readbacks copied out of (the device-copied memory free again), for the next readback to reuse.
class ReadbackPool {
 public:
  Readback take() {
    const std::lock_guard lock(mutex_);
    if (free_.empty()) return {};
    Readback r = std::move(free_.back());
    free_.pop_back();
    return r;
  }
  void give(Readback r) {
    const std::lock_guard lock(mutex_);
    free_.push_back(std::move(r));
  }

 private:
  std::mutex mutex_;
  std::vector<Readback> free_;
};

struct BenchmarkCase {
  DeviceBench* device;
  const KernelSpec* spec;
  SizeSpec size;
  bool cold;
  std::string size_text;
  std::string name;
  const Expectation* expectation;  // the entry for this kernel on this device, if any
};

// Google Benchmark's --benchmark_filter, on the clean names: a regular expression, '-' in front negates.
std::function<bool(const std::string&)> benchmark_filter() {
  std::string spec = benchmark::GetBenchmarkFilter();
  if (spec.empty() || spec == "all") return [](const std::string&) { return true; };
  const bool negate = spec.front() == '-';
  if (negate) spec.erase(0, 1);
  std::regex re;
  try {
    re = std::regex(spec);
  } catch (const std::regex_error& e) {
    throw UsageError("--benchmark_filter '" + benchmark::GetBenchmarkFilter() +
                                "' is not a valid regular expression: " + e.what());
  }
  return [re, negate](const std::string& name) { return std::regex_search(name, re) != negate; };
}

// Each device opened for benchmarking, with its memory roofline measured first (a device lost there has
// its benchmarks reported as not run; the other devices go on).
std::vector<std::unique_ptr<DeviceBench>> open_devices(Instance& instance, const std::vector<uint32_t>& device_indices,
                                                       const BenchmarkOptions& options) {
  std::vector<std::unique_ptr<DeviceBench>> devices;
  for (uint32_t index : device_indices) {
    auto d = std::make_unique<DeviceBench>();
    d->device = std::make_unique<Device>(instance, index);
    d->device->set_submit_timeout(options.policy.gpu_timeout_s);
    d->compiler = std::make_unique<ShaderCompiler>();
    d->timer = std::make_unique<GpuTimer>(*d->device, *d->compiler, options.sampling.flush_bytes);
    d->nvml = std::make_unique<NvmlMonitor>(d->device->info().device_uuid);
    if (d->nvml->available()) d->timer->watch_clocks(d->nvml.get());
    if (device_indices.size() > 1) d->suffix = std::string(contract::kDeviceNameSuffix) + std::to_string(index);
    std::cerr << "measuring the memory roofline (copy, read-only and write bandwidths) on " << d->device->info().name << " ..." << std::endl;
    try {
      d->bandwidth = measure_bandwidth(*d, options);
      std::cerr << "  copy kernel " << d->bandwidth.copy_kernel / 1e9 << " GB/s, vkCmdCopyBuffer "
                << d->bandwidth.copy_buffer / 1e9 << " GB/s, read-only " << d->bandwidth.read_only / 1e9
                << " GB/s, write " << d->bandwidth.write / 1e9 << " GB/s" << std::endl;
    } catch (const DeviceLostError& e) {
      std::cerr << "  " << e.what() << std::endl;
    }
    devices.push_back(std::move(d));
  }
  return devices;
}

// The run's context in Google Benchmark's: the harness revision, the format and the seed, and a lone device's own
// keys, which its outputs then show too. Each results document gets its device's keys from RunDevice, so several
// devices need no keys of Google Benchmark's that tell them apart.
void add_run_context(const std::vector<RunDevice>& devices, const BenchmarkOptions& options) {
  benchmark::AddCustomContext(contract::context_key(contract::kHarnessRevision), options.harness_revision);
  benchmark::AddCustomContext(contract::context_key(contract::kFormatVersion), std::to_string(contract::kCurrentFormatVersion));
  benchmark::AddCustomContext("sw_seed", std::to_string(options.seed));
  if (devices.size() == 1)
    for (const auto& [key, value] : devices[0].context) benchmark::AddCustomContext(contract::context_key(key), value);
}

std::vector<BenchmarkCase> benchmark_cases(const std::vector<std::unique_ptr<DeviceBench>>& devices,
                                           const BenchmarkOptions& options) {
  std::vector<BenchmarkCase> cases;
  for (auto& d : devices) {
    for (auto& b : selected_benchmarks(options, d->suffix))
      cases.push_back({d.get(), b.spec, b.size, b.cold, std::move(b.size_text), std::move(b.name),
                       options.policy.expectations.find(b.spec->name, d->device->info(), b.size.items())});
  }
  return cases;
}

// The cases in the order they are measured (measured_before).
std::vector<size_t> measuring_order(const std::vector<BenchmarkCase>& cases) {
  std::vector<size_t> order(cases.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return measured_before(*cases[a].spec, cases[a].size, *cases[b].spec, cases[b].size); });
  return order;
}

// What the suite's benchmarks share while they are measured one after another.
struct SuiteState {
  const BenchmarkOptions& options;
  SuiteInputs& inputs;
  SuiteTiming timing;
  RunCache cache;
  CheckQueue checks{std::max(1u, std::thread::hardware_concurrency() - 1), queued_readback_limit()};
  ReadbackPool readbacks;
};

// One benchmark: its result's identity, then (unless skipped or its device was lost) its kernel set up, sampled
// and read back; the check is queued (`outcome`) to run on a worker while the next benchmark samples.
void measure_case(const BenchmarkCase& c, BenchmarkResult& r, std::shared_future<CheckResult>& outcome, SuiteState& s) {
  r.name = c.name;
  r.spec = c.spec;
  r.device = c.device->device->info().name;
  r.device_suffix = c.device->suffix;
  r.size = c.size_text;
  r.size_items = c.size.items();
  r.cold = c.cold;
  // None on a CPU device (lavapipe): its caches hold the inputs the probes' large buffers do not fit,
  // so kernels would read at "1000% of the memory roofline".
  if (c.device->device->info().type != VK_PHYSICAL_DEVICE_TYPE_CPU) r.bandwidths = c.device->bandwidth;
  if (c.expectation && c.expectation->expect == Expect::Skip) {
    r.outcome = skipped_outcome(*c.expectation);
    return;
  }
  if (const std::string& lost = c.device->device->lost(); !lost.empty()) {  // the other devices go on
    r.outcome.status = CheckStatus::Error;
    r.outcome.message = "not run: " + c.device->device->info().name + " was lost earlier: " + lost;
    return;
  }
  SuiteTiming& timing = s.timing;
  const auto case_start = SuiteTiming::Clock::now();
  auto t = case_start;
  try {
    const Problem& problem = s.inputs.problem(*c.spec, c.size);
    const DerivedInput& derived = s.inputs.derived(*c.spec, c.size);
    t = timing.add("inputs", t);
    std::shared_ptr<KernelRun> run = s.cache.last(*c.device, *c.spec, problem);
    const bool reused = run != nullptr;
    if (!reused) {
      s.cache.release_last();
      t = timing.add("freeing the last kernel", t);
      std::shared_ptr<const KernelInput> input = s.cache.input(*c.device, *c.spec, problem, derived);
      t = timing.add("input upload", t);
      run = s.cache.make(*c.device, *c.spec, problem, std::move(input));
      t = timing.add("kernel setup", t);
    }
    r.spirv_hash = run->spirv_hash();
    r.compiled = run->compiled();
    r.input = input_identity(problem);
    r.traffic = kernel_traffic(*c.spec, problem.items());
    r.items = problem.items();
    c.device->nvml->start();
    r.measurement = c.device->timer->sample([&](VkCommandBuffer cmd) { run->record_poison(cmd); },
                                            [&](VkCommandBuffer cmd) { run->record(cmd); }, c.cold, s.options.sampling,
                                            reused);
    if (c.device->nvml->available()) r.clocks = c.device->nvml->stop();
    const Measurement& m = r.measurement;
    const double call = std::chrono::duration<double>(SuiteTiming::Clock::now() - t).count();
    timing.add_seconds("warm-up", m.warmup_wall_seconds);
    timing.add_seconds("sampling", m.sampling_wall_seconds);
    timing.add_seconds("  of which timed on the GPU", m.stats.gpu_seconds);
    timing.add_seconds("NVML and sampler overhead", call - m.warmup_wall_seconds - m.sampling_wall_seconds);
    t = SuiteTiming::Clock::now();
    // The output of the last timed dispatch, compared on a worker while the next benchmark samples.
    Readback copied = run->read_outputs(s.readbacks.take());
    if (s.options.policy.corrupts(c.spec->name)) corrupt_readback(copied);
    t = timing.add("readback", t);
    // Out of the memory the device copied into (pinned) into the host's own, on a thread of its own: the next
    // readback reuses the pinned memory at once instead of pinning more for every check still queued (at 8K that
    // was seconds of the suite).
    const uint64_t bytes = copied.bytes.size();
    auto got = std::async(std::launch::async, [copied = std::move(copied), &readbacks = s.readbacks]() mutable {
                 auto own = std::make_shared<const Readback>(copied.copy());
                 readbacks.give(std::move(copied));
                 return own;
               }).share();
    outcome = s.checks.submit([run, got] { return run->check(*got.get()); }, bytes);
    timing.add("waiting for the check queue", t);
  } catch (const UnsupportedError& e) {
    r.outcome.status = CheckStatus::Unsupported;
    r.outcome.message = e.what();
  } catch (const std::exception& e) {
    r.outcome.status = CheckStatus::Error;
    r.outcome.message = std::string(e.what()) + " (kernel " + c.spec->name + ", device " + c.device->device->info().name + ")";
  }
  timing.add_benchmark(c.name, std::chrono::duration<double>(SuiteTiming::Clock::now() - case_start).count());
}

// A benchmark's queued check awaited, its expectation applied (a flaky kernel rerun), its error message set.
void finish_case(const BenchmarkCase& c, BenchmarkResult& r, std::shared_future<CheckResult>& outcome, SuiteState& s) {
  if (outcome.valid()) {
    try {
      r.outcome = outcome.get();
    } catch (const std::exception& e) {
      r.outcome.status = CheckStatus::Error;
      r.outcome.message = std::string(e.what()) + " (checking " + r.name + ")";
    }
  }
  r.outcome = apply_expectation(c.expectation, std::move(r.outcome), [&] {
    std::cerr << r.name << ": its check failed; rerunning it (flaky entry '" << c.expectation->id << "')" << std::endl;
    return run_and_check(*c.device->device, *c.device->compiler, *c.spec,
                         s.inputs.problem(*c.spec, c.size), s.options.policy.corrupts(c.spec->name));
  });
  r.error_message = row_error_message(r.outcome, s.options.seed);
}

}  // namespace

std::vector<SelectedBenchmark> selected_benchmarks(const BenchmarkOptions& options, const std::string& device_suffix) {
  const auto selected = benchmark_filter();
  std::vector<SelectedBenchmark> out;
  for (const auto& spec : catalog()) {
    if (!std::regex_search(spec.name, options.filter)) continue;
    const SizeKind kind = kernel_family(spec.family).size;
    for (const auto& size : benchmark_sizes(spec, options)) {
      const std::string text = size_text(kind, size);
      for (bool cold : {false, true}) {
        std::string name = spec.name + "/" + text + (cold ? "/cold" : "/hot") + device_suffix;
        if (selected(name)) out.push_back({&spec, size, text, cold, std::move(name)});
      }
    }
  }
  return out;
}

BenchmarkRun measure_benchmarks(Instance& instance, const std::vector<uint32_t>& device_indices,
                                const BenchmarkOptions& options) {
  SuiteInputs inputs = [&] {  // made while the devices open and measure their roofline
    std::vector<SelectedBenchmark> selected = selected_benchmarks(options, "");
    std::stable_sort(selected.begin(), selected.end(),
                     [](const auto& a, const auto& b) { return measured_before(*a.spec, a.size, *b.spec, b.size); });
    std::vector<std::pair<const KernelSpec*, SizeSpec>> needed;
    for (const auto& b : selected) needed.emplace_back(b.spec, b.size);
    return SuiteInputs(needed, options.seed);
  }();
  const auto devices = open_devices(instance, device_indices, options);
  std::vector<RunDevice> device_contexts;
  for (const auto& d : devices) device_contexts.push_back({d->suffix, device_context(*d)});
  add_run_context(device_contexts, options);
  const std::vector<BenchmarkCase> cases = benchmark_cases(devices, options);
  const auto start = SuiteTiming::Clock::now();
  SuiteState state{options, inputs};
  std::vector<BenchmarkResult> results(cases.size());
  std::vector<std::shared_future<CheckResult>> outcomes(cases.size());
  {
    Progress progress(cases.size());
    const std::vector<size_t> order = measuring_order(cases);
    for (size_t n = 0; n < order.size(); ++n) {
      const size_t i = order[n];
      progress.at(n, cases[i].name + " on " + cases[i].device->device->info().name);
      measure_case(cases[i], results[i], outcomes[i], state);
    }
  }
  const auto sampled = SuiteTiming::Clock::now();
  for (size_t i = 0; i < cases.size(); ++i) finish_case(cases[i], results[i], outcomes[i], state);
  state.timing.add("checks left after sampling", sampled);
  BenchmarkRun run;
  run.results = std::move(results);
  run.timing = std::move(state.timing);
  run.seconds = std::chrono::duration<double>(SuiteTiming::Clock::now() - start).count();
  for (const auto& d : devices)
    run.devices.push_back(d->device->info().name + " (" + d->device->info().driver_name + " " +
                          d->device->info().driver_version_string() + ")");
  run.device_contexts = std::move(device_contexts);
  return run;
}

}  // namespace shaderwatch
