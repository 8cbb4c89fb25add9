#pragma once
// One benchmark as the suite measured and checked it: what every report (Google Benchmark's rows, the terminal
// report, the result documents) is made from.
#include <shaderwatch/result_contract.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog.h"
#include "check/check.h"
#include "run/gpu_timer.h"
#include "run/nvml_monitor.h"
#include "run/roofline.h"
#include "vulkan/pipeline_statistics.h"

namespace shaderwatch {

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
  std::string input;  // inputs/inputs.h input_identity: "hdr-test@1"
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

}  // namespace shaderwatch
