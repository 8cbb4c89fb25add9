#pragma once
// GPU clocks, power and throttle reasons beside each benchmark, from NVML (libnvidia-ml.so.1, loaded at
// run time: present on NVIDIA machines, absent elsewhere, where every reading is unknown). A thread polls while a
// benchmark warms up and samples (between benchmarks, the SM clock alone); the benchmark reports the lowest clocks
// and every throttle reason seen while it sampled, and its warm-up goes on while the SM clock is below the highest
// this GPU ran at.
#include <array>
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
  void start();                  // clears the readings; every poll until stop() adds to them
  void restart_readings();       // clears the readings: the sampling's, not the warm-up's
  ClockReadings stop();          // the readings since start() or restart_readings()
  // Whether the SM clock (read every few milliseconds from the first start() on, between benchmarks too) is within
  // kClocksUp of the highest seen since the monitor was made; true where unknown. After the GPU sat idle for 0.1-0.5 s
  // (the suite waiting for its checks) an H200 ran fast kernels at 1170-1650 MHz, not 1980, through a warm-up that
  // had settled and all of their sampling: up to 53% slow.
  bool clocks_up();
  static constexpr double kClocksUp = 0.95;

 private:
  void poll();
  struct Api;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;
  std::string why_;
  std::mutex mutex_;
  ClockReadings readings_;
  uint32_t sm_mhz_now_ = 0, sm_mhz_highest_ = 0;
  bool recording_ = false, fresh_start_ = false, quitting_ = false;
  std::condition_variable wake_;  // start() and the destructor wake the poller
  std::thread thread_;
};

}  // namespace shaderwatch
