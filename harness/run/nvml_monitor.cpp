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
  if (running_) stop();
}

void NvmlMonitor::poll() {
  const Api& a = *api_;
  unsigned sm = 0, mem = 0, mw = 0, temp = 0;
  unsigned long long reasons = 0;
  const bool clocks = a.clock(device_, kClockSm, &sm) == 0 && a.clock(device_, kClockMem, &mem) == 0;
  const bool have_reasons = a.throttle(device_, &reasons) == 0;
  const bool have_power = a.power(device_, &mw) == 0;
  const bool have_temp = a.temperature(device_, kTemperatureGpu, &temp) == 0;
  std::lock_guard lock(mutex_);
  ClockReadings& r = readings_;
  if (clocks) {
    sm_mhz_now_ = sm;
    sm_mhz_highest_ = std::max(sm_mhz_highest_, sm);
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
  if (!available() || running_) return;
  {
    std::lock_guard lock(mutex_);
    readings_ = {};
  }
  running_ = true;
  thread_ = std::thread([this] {
    do {
      poll();  // first at once: at least one reading, however short the benchmark
      std::unique_lock lock(mutex_);
      stopping_.wait_for(lock, kPollInterval, [this] { return !running_; });
    } while (running_);
  });
}

void NvmlMonitor::restart_readings() {
  if (!running_) return;
  {
    std::lock_guard lock(mutex_);
    readings_ = {};
  }
  poll();
}

bool NvmlMonitor::clocks_up() {
  std::lock_guard lock(mutex_);
  return sm_mhz_now_ == 0 || sm_mhz_now_ >= kClocksUp * sm_mhz_highest_;
}

ClockReadings NvmlMonitor::stop() {
  if (running_) {
    {
      std::lock_guard lock(mutex_);  // so the poller cannot miss the notification between its check and its wait
      running_ = false;
    }
    stopping_.notify_all();
    thread_.join();
  }
  std::lock_guard lock(mutex_);
  return readings_;
}

}  // namespace shaderwatch
