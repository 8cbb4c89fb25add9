#include "run/cpu_device.h"

#include <memory>
#include <mutex>
#include <optional>

namespace shaderwatch {

namespace {

struct CpuDevice {
  Instance instance{false};
  std::optional<Device> device;
  ShaderCompiler compiler;
};

}  // namespace

void with_cpu_device(const std::function<void(Device&, ShaderCompiler&)>& use) {
  static std::mutex mutex;
  static std::unique_ptr<CpuDevice> cpu;
  std::lock_guard lock(mutex);
  if (!cpu) {
    auto opened = std::make_unique<CpuDevice>();
    for (const DeviceInfo& d : opened->instance.devices()) {
      if (d.type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
        opened->device.emplace(opened->instance, d.index, DeviceWants{.float64 = true});
        break;
      }
    }
    if (!opened->device) {
      std::string listed;
      for (const DeviceInfo& d : opened->instance.devices()) listed += (listed.empty() ? "" : ", ") + d.name;
      throw VulkanError("a reference shader runs on the CPU Vulkan device (lavapipe: Debian's mesa-vulkan-drivers), "
                        "and the Vulkan loader lists none (its devices: " + (listed.empty() ? "none" : listed) + ")");
    }
    cpu = std::move(opened);
  }
  use(*cpu->device, cpu->compiler);
}

}  // namespace shaderwatch
