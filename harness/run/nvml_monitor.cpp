#include "run/nvml_monitor.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace shaderwatch {

namespace {
constexpr auto kPollInterval = std::chrono::milliseconds(10);
constexpr uint64_t kThrottleIdle = 0x1;  // nvmlClocksEventReasonGpuIdle: expected between batches
constexpr int kClockSm = 1, kClockMem = 2, kTemperatureGpu = 0;
}  // namespace

// The few NVML entry points used (nvml.h: every call returns 0 on success).
struct NvmlMonitor::Api {
  void* library = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_uuid)(const char*, void**) = nullptr;
  int (*clock)(void*, int, unsigned*) = nullptr;
  int (*throttle)(void*, unsigned long long*) = nullptr;
  int (*power)(void*, unsigned*) = nullptr;
  int (*temperature)(void*, int, unsigned*) = nullptr;
  ~Api() {
    if (shutdown) shutdown();
    if (library) dlclose(library);
  }
};

NvmlMonitor::NvmlMonitor(const std::array<uint8_t, 16>& device_uuid) : api_(std::make_unique<Api>()) {
  Api& a = *api_;
  a.library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!a.library) {
    why_ = "libnvidia-ml.so.1 not found";
    return;
  }
  auto load = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(a.library, name));
    return fn != nullptr;
  };
  if (!load(a.init, "nvmlInit_v2") || !load(a.by_uuid, "nvmlDeviceGetHandleByUUID") ||
      !load(a.clock, "nvmlDeviceGetClockInfo") || !load(a.throttle, "nvmlDeviceGetCurrentClocksThrottleReasons") ||
      !load(a.power, "nvmlDeviceGetPowerUsage") || !load(a.temperature, "nvmlDeviceGetTemperature")) {
    why_ = "libnvidia-ml.so.1 lacks an entry point";
    return;
  }
  if (a.init() != 0) {
    why_ = "nvmlInit_v2 failed";
    return;
  }
  load(a.shutdown, "nvmlShutdown");
  char uuid[64] = "GPU-";
  for (size_t i = 0, at = 4; i < device_uuid.size(); ++i) {
    at += static_cast<size_t>(std::snprintf(uuid + at, sizeof uuid - at, "%02x", device_uuid[i]));
    if (i == 3 || i == 5 || i == 7 || i == 9) uuid[at++] = '-';
  }
  if (a.by_uuid(uuid, &device_) != 0) {
    device_ = nullptr;
    why_ = std::string("NVML has no device ") + uuid;
  }
}

NvmlMonitor::~NvmlMonitor() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    quitting_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void NvmlMonitor::poll() {
  const Api& a = *api_;
  unsigned sm = 0;
  const bool have_sm = a.clock(device_, kClockSm, &sm) == 0;
  {
    std::lock_guard lock(mutex_);
    if (have_sm) {
      sm_mhz_now_ = sm;
      sm_mhz_highest_ = std::max(sm_mhz_highest_, sm);
    }
    if (!recording_) return;  // between benchmarks only the SM clock, for clocks_up()
  }
  unsigned mem = 0, mw = 0, temp = 0;
  unsigned long long reasons = 0;
  const bool have_mem = a.clock(device_, kClockMem, &mem) == 0;
  const bool have_reasons = a.throttle(device_, &reasons) == 0;
  const bool have_power = a.power(device_, &mw) == 0;
  const bool have_temp = a.temperature(device_, kTemperatureGpu, &temp) == 0;
  std::lock_guard lock(mutex_);
  if (!recording_) return;  // stopped while this poll ran: the readings are the caller's already
  ClockReadings& r = readings_;
  if (have_sm && have_mem) {
    r.sm_mhz_min = r.polls ? std::min(r.sm_mhz_min, sm) : sm;
    r.mem_mhz_min = r.polls ? std::min(r.mem_mhz_min, mem) : mem;
    r.sm_mhz_max = std::max(r.sm_mhz_max, sm);
    r.mem_mhz_max = std::max(r.mem_mhz_max, mem);
    ++r.polls;
  }
  if (have_reasons) r.throttle_reasons |= reasons & ~kThrottleIdle;
  if (have_power) r.power_mw_max = std::max(r.power_mw_max, mw);
  if (have_temp) r.temperature_c_max = std::max(r.temperature_c_max, temp);
}

void NvmlMonitor::start() {
  if (!available()) return;
  {
    std::lock_guard lock(mutex_);
    readings_ = {};
    recording_ = true;
    fresh_start_ = true;
  }
  if (!thread_.joinable()) {
    // One poller for the monitor's life: starting and joining one per benchmark, and waiting for its poll in
    // progress at the stop, took 3-5 s of the default suite. Between benchmarks it reads the SM clock alone, so that
    // clocks_up() never judges by a reading from before an idle gap.
    thread_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      while (!quitting_) {
        fresh_start_ = false;
        lock.unlock();
        poll();  // at once after start(): at least one reading, however short the benchmark
        lock.lock();
        wake_.wait_for(lock, kPollInterval, [this] { return quitting_ || fresh_start_; });
      }
    });
  }
  wake_.notify_all();
}

void NvmlMonitor::restart_readings() {
  std::lock_guard lock(mutex_);
  if (recording_) readings_ = {};
}

bool NvmlMonitor::clocks_up() {
  std::lock_guard lock(mutex_);
  return sm_mhz_now_ == 0 || sm_mhz_now_ >= kClocksUp * sm_mhz_highest_;
}

ClockReadings NvmlMonitor::stop() {
  bool polled = true;
  {
    std::lock_guard lock(mutex_);
    if (!recording_) return readings_;
    polled = readings_.polls > 0;
  }
  if (!polled) poll();  // a sampling shorter than the poll interval: one reading of its own
  std::lock_guard lock(mutex_);
  recording_ = false;
  return readings_;
}

}  // namespace shaderwatch
