// A tiny real Google Benchmark program: the tests run it with --benchmark_format=json and
// --benchmark_repetitions=3 to get genuine output to ingest. Names follow shaderwatch-bench's
// style (family/variant/size/mode). Environment knobs shape the output:
//   SW_SAMPLE_PLAIN=1     no sw_* context keys (plain Google Benchmark output)
//   SW_SAMPLE_FAIL=1      lum/tiled_16 reports an error (a correctness failure)
//   SW_SAMPLE_NEGATIVE=1  adds a negative control reporting its expected failure, as shaderwatch-bench does
//   SW_SAMPLE_UNSUPPORTED=1  adds a kernel the device cannot run, reported as shaderwatch-bench does
//   SW_SAMPLE_GPU, SW_SAMPLE_DRIVER   override the device name / driver version
#include <benchmark/benchmark.h>

#include <shaderwatch/result_contract.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

namespace {

const char* env(const char* k, const char* dflt) {
  const char* v = std::getenv(k);
  return v && *v ? v : dflt;
}

void sum_kernel(benchmark::State& state, int stride, std::size_t n) {
  std::vector<float> v(n, 1.0f);
  for (auto _ : state) {
    float acc = 0;
    for (std::size_t i = 0; i < v.size(); i += static_cast<std::size_t>(stride)) acc += v[i];
    benchmark::DoNotOptimize(acc);
  }
  state.SetLabel("sample");
  state.counters["bytes_per_second"] =
      benchmark::Counter(static_cast<double>(v.size() * sizeof(float)), benchmark::Counter::kIsIterationInvariantRate);
}

void tiled(benchmark::State& state) {
  if (std::string(env("SW_SAMPLE_FAIL", "0")) == "1") {
    state.SkipWithError("output mismatch at pixel (3, 7): got 0.5, want 0.25");
    for (auto _ : state) {
    }
    return;
  }
  sum_kernel(state, 2, 4096);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("lum/sequential_256/4096/cold", [](benchmark::State& s) { sum_kernel(s, 1, 4096); });
  benchmark::RegisterBenchmark("lum/tiled_16/4096/cold", tiled);
  if (std::string(env("SW_SAMPLE_NEGATIVE", "0")) == "1") {
    benchmark::RegisterBenchmark("lum/unrolled_literal_256/4096/cold", [](benchmark::State& s) {
      const std::string message = shaderwatch::contract::expected_outcome_message(
          "negative control", shaderwatch::contract::kXfail, "race observed: element 0 (tile 0,0): expected 1, got 0.5");
      s.SkipWithError(message.c_str());
      for (auto _ : s) {
      }
    });
  }
  if (std::string(env("SW_SAMPLE_UNSUPPORTED", "0")) == "1") {
    benchmark::RegisterBenchmark("lum/subgroup_add_256/4096/cold", [](benchmark::State& s) {
      const std::string message = std::string(shaderwatch::contract::kUnsupportedPrefix) +
                                  "compute shaders on this device lack the subgroup operations the kernel needs";
      s.SkipWithError(message.c_str());
      for (auto _ : s) {
      }
    });
  }
  benchmark::RegisterBenchmark("blur/separable/1024/warm", [](benchmark::State& s) { sum_kernel(s, 4, 1024); });
  if (std::string(env("SW_SAMPLE_PLAIN", "0")) != "1") {
    benchmark::AddCustomContext("sw_device_name", env("SW_SAMPLE_GPU", "NVIDIA GeForce RTX 4090"));
    benchmark::AddCustomContext("sw_vendor_id", "0x10de");
    benchmark::AddCustomContext("sw_device_id", "0x2684");
    benchmark::AddCustomContext("sw_device_type", "discrete");
    benchmark::AddCustomContext("sw_driver_id", "NVIDIA_PROPRIETARY");
    benchmark::AddCustomContext("sw_driver_name", "NVIDIA");
    benchmark::AddCustomContext("sw_driver_info", "580.159");
    benchmark::AddCustomContext("sw_driver_version", env("SW_SAMPLE_DRIVER", "580.159.0.0"));
    benchmark::AddCustomContext("sw_api_version", "1.4.312");
    benchmark::AddCustomContext("sw_harness_revision", "deadbeef");
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
