#pragma once
// GPU clocks, power and throttle reasons beside each benchmark, from NVML (libnvidia-ml.so.1, loaded at
// run time: present on NVIDIA machines, absent elsewhere, where every reading is unknown). A thread polls
// while a benchmark samples; the benchmark reports the lowest clocks and every throttle reason seen.
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace shaderwatch {

struct ClockReadings {
  uint32_t polls = 0;
  uint32_t sm_mhz_min = 0, sm_mhz_max = 0, mem_mhz_min = 0, mem_mhz_max = 0;
  uint32_t power_mw_max = 0, temperature_c_max = 0;
  uint64_t throttle_reasons = 0;  // NVML clocks-event reasons OR'd over the polls (idle 0x1 masked out)
};

class NvmlMonitor {
 public:
  // device_uuid: Vulkan's deviceUUID, which NVML names "GPU-<uuid>". Nothing is polled if NVML or the
  // device is missing; available() says which.
  explicit NvmlMonitor(const std::array<uint8_t, 16>& device_uuid);
  ~NvmlMonitor();
  NvmlMonitor(const NvmlMonitor&) = delete;
  NvmlMonitor& operator=(const NvmlMonitor&) = delete;

  bool available() const { return device_ != nullptr; }
  const std::string& why_unavailable() const { return why_; }
  void start();                  // clears the readings and polls every few milliseconds
  ClockReadings stop();          // the readings since start()

 private:
  void poll();
  struct Api;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;
  std::string why_;
  std::mutex mutex_;
  ClockReadings readings_;
  std::atomic<bool> running_{false};
  std::condition_variable stopping_;  // wakes the poller at stop(): a benchmark does not wait out its sleep
  std::thread thread_;
};

}  // namespace shaderwatch
