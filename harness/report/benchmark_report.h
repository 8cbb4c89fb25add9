#pragma once
// Reporting, apart from measuring: a benchmark's measurement and check become Google Benchmark
// repetitions, counters and a label; reporters write them under their clean names.
#include <benchmark/benchmark.h>
#include <shaderwatch/result_contract.h>

#include <memory>
#include <string>
#include <vector>

#include "check/check.h"
#include "run/gpu_timer.h"
#include "run/nvml_monitor.h"
#include "run/roofline.h"
#include "vulkan/pipeline_statistics.h"

namespace shaderwatch {

// Each benchmark is reported as this many Google Benchmark repetitions: its samples in time order cut
// into as many chunks, one repetition per chunk (fewer with fewer samples). U tests (the server's,
// compare.py's) then have a distribution to work on.
inline constexpr size_t kReportedRepetitions = 10;

// One benchmark as measured and checked, ready to report.
struct BenchmarkResult {
  std::string name;  // family/variant/size/mode[/devN]: permanent, the results server keys series on it
  // The same, apart, for the terminal report.
  const KernelSpec* spec = nullptr;
  std::string device, size;  // device name; "1920x1080" or "4096"
  std::string device_suffix;  // "/dev<N>" ending the name with several devices, else ""
  uint64_t size_items = 0;   // pixels or boids
  bool cold = false;
  Measurement measurement;
  CheckResult outcome;              // of the check of the last timed dispatch
  std::string error_message;    // non-empty: reported as an error row (no times)
  std::string spirv_hash;
  std::string input;  // run/inputs.h input_identity: "hdr-test@1"
  // What the driver compiled of its kernel's pipelines (empty where the device does not say), shared by the
  // kernel's benchmarks on that device.
  std::shared_ptr<const std::vector<std::vector<PipelineExecutable>>> compiled;
  Traffic traffic;    // per dispatch
  uint64_t items = 0;  // per dispatch
  Bandwidths bandwidths;  // of its device, measured at the start of the run; none on a CPU device
  std::optional<ClockReadings> clocks;  // while sampling, where NVML is available
};

// A row's status in the results contract: what its check said.
contract::RowStatus row_status(CheckStatus status);
// Why a benchmark reports no times: an expectations entry's outcome (XFAIL, XPASS, SKIP), a kernel the
// device cannot run, a wrong answer, an error. Empty for a pass and a flake. The prefixes say again what
// the row's status (row_status) says, for people and Google Benchmark's tools.
std::string row_error_message(const CheckResult& outcome, uint64_t seed);

// The time of each reported repetition: chunk medians; chunk means where the samples form several
// groups, so the reported level moves with the groups' shares instead of jumping to the larger group.
std::vector<double> repetition_seconds(const Measurement& m);

// "spirv:... stop:..." plus, where they apply, the groups with share and level, and "precision not reached".
std::string result_label(const BenchmarkResult& r);

// Sets repetition `index` of `r` on `state`: its time, counters, label, or the error.
void report_repetition(benchmark::State& state, const BenchmarkResult& r, size_t index);

// A reporter that writes through `inner` with every run named by its clean name: Google Benchmark's
// "/iterations:1", "/repeats:N" and "/manual_time" decoration removed; counters that are not finite
// (a cv over zeros) left out, so the JSON stays JSON.
class CleanNameReporter : public benchmark::BenchmarkReporter {
 public:
  // aggregates_only: pass on only the aggregate rows (mean, median, stddev, cv) of repeated benchmarks,
  // as the console shows them; machine-readable output gets every repetition.
  CleanNameReporter(benchmark::BenchmarkReporter* inner, std::unique_ptr<benchmark::BenchmarkReporter> owned = nullptr,
                    bool aggregates_only = false);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  benchmark::BenchmarkReporter* inner_;
  std::unique_ptr<benchmark::BenchmarkReporter> owned_;
  bool aggregates_only_;
};

// The file reporter for --benchmark_out_format (json, the default; csv; console), clean names.
// Throws std::invalid_argument for another format.
std::unique_ptr<CleanNameReporter> make_file_reporter(const std::string& format);

// Throws std::runtime_error naming --benchmark_out's file and the system's reason when it cannot be
// written (a missing directory, no permission), so the mistake shows before the GPU work, not after it.
// A file that did not exist is not left behind.
void check_output_file_writable(const std::string& path);

}  // namespace shaderwatch
