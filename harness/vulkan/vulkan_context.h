#pragma once
// Vulkan instance, device choice and the logical device the harness runs kernels on. Everything goes
// through volk, so the binary needs no link-time Vulkan loader and fails clearly when none is installed.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vulkan/vulkan_error.h"

namespace shaderwatch {

struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t vendor_id = 0, device_id = 0;
  VkDriverId driver_id{};
  std::string driver_name, driver_info;
  uint32_t driver_version = 0;  // raw, vendor-encoded
  uint32_t api_version = 0;
  std::array<uint8_t, VK_UUID_SIZE> device_uuid{}, driver_uuid{};
  uint32_t subgroup_size = 0;
  VkSubgroupFeatureFlags subgroup_operations = 0;  // in compute shaders
  uint32_t min_subgroup_size = 0, max_subgroup_size = 0;  // 0 without VK_EXT_subgroup_size_control
  bool compute_subgroup_size_control = false;  // a compute pipeline may require a size in [min, max]
  uint32_t max_compute_workgroup_subgroups = 0;
  float timestamp_period = 0;
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_storage_buffer_range = 0;
  uint32_t max_workgroup_count_x = 0, max_workgroup_count_y = 0;
  uint32_t sm_count = 0;  // from VK_NV_shader_sm_builtins where present, else 0
  bool subgroup_clock = false;  // VK_KHR_shader_clock's shaderSubgroupClock: what --check --race's delays read

  std::string type_name() const;
  std::string api_version_string() const;
  std::string driver_version_string() const;  // decoded per vendor
  bool has_subgroup_ops(VkSubgroupFeatureFlags ops) const { return (subgroup_operations & ops) == ops; }
  // The subgroup sizes a kernel of `invocations` per workgroup can be required to run at: every power of two in
  // [min, max] whose subgroups fill the workgroup within maxComputeWorkgroupSubgroups (one where min = max).
  // Empty where the device cannot require a size in compute shaders.
  std::vector<uint32_t> requirable_subgroup_sizes(uint32_t invocations) const;
};

// Messages from the Khronos validation layer (errors and warnings), collected for tests to assert on.
class ValidationLog {
 public:
  void add(std::string message);
  std::vector<std::string> take();
  size_t count() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

class Instance {
 public:
  // validation: enable VK_LAYER_KHRONOS_validation and a messenger that records errors and warnings.
  explicit Instance(bool validation);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  const std::vector<DeviceInfo>& devices() const { return devices_; }
  VkPhysicalDevice physical_device(uint32_t index) const { return physical_devices_.at(index); }
  VkInstance handle() const { return instance_; }
  ValidationLog& validation_log() { return validation_log_; }

  // "N" (index) or a case-insensitive substring of the name; empty: first discrete GPU, else integrated,
  // else virtual, else the CPU device. Throws std::invalid_argument naming the choices when nothing matches.
  uint32_t select(const std::string& selector) const;

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;  // this instance's (volk's is the first one's)
  std::vector<VkPhysicalDevice> physical_devices_;
  std::vector<DeviceInfo> devices_;
  ValidationLog validation_log_;
};

class Buffer;
class Device;

// Work on the device's queue not yet waited for. wait() blocks until it is done, at most the device's submit timeout,
// and throws DeviceLostError as Device::submit_and_wait does. Destroying one never waited for waits for it first.
class Submission {
 public:
  Submission(Submission&& other) noexcept;
  Submission& operator=(Submission&&) = delete;
  ~Submission();
  void wait();

 private:
  friend class Device;
  Submission(Device& device, VkCommandBuffer cmd, VkFence fence) : device_(&device), cmd_(cmd), fence_(fence) {}
  void release();
  Device* device_;
  VkCommandBuffer cmd_;
  VkFence fence_;
  bool waited_ = false;
};

// Features past what every kernel uses, enabled only where asked for.
struct DeviceWants {
  bool shader_clock = false;  // VK_KHR_shader_clock's subgroup clock: the race delays of --check --race
  bool float64 = false;       // doubles in shaders (shaderFloat64), where the device has them: reference shaders'
};

// A logical device with one queue that does compute, graphics and transfer, and timestamps.
class Device {
 public:
  // Throws UnsupportedError when the device lacks what `wants` asks for.
  Device(Instance& instance, uint32_t index, const DeviceWants& wants = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  VkDevice handle() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t timestamp_valid_bits() const { return timestamp_valid_bits_; }
  const DeviceInfo& info() const { return info_; }
  Instance& instance() const { return instance_; }

  // Memory for `requirements` of a type with `wanted` properties, else `fallback` ones (0: any).
  VkDeviceMemory allocate(const VkMemoryRequirements& requirements, VkMemoryPropertyFlags wanted,
                          VkMemoryPropertyFlags fallback) const;
  bool format_has(VkFormat format, VkFormatFeatureFlags features) const;

  // Records with `record` into a fresh command buffer, submits it and waits for it to finish, at most the
  // submit timeout. Throws DeviceLostError when the device is lost or the wait times out, and for every
  // submission after that: the device is then left as it is (its objects are not destroyed, as work may
  // still run on them) and the process goes on with other devices.
  void submit_and_wait(const std::function<void(VkCommandBuffer)>& record);
  // The same without the wait: the GPU can run it while the host records the next (GpuTimer's sampling batches).
  // Submissions run in the order they were made.
  Submission submit(const std::function<void(VkCommandBuffer)>& record);
  void set_submit_timeout(double seconds) { submit_timeout_s_ = seconds; }
  // Why the device is unusable ("" while it is fine).
  const std::string& lost() const { return lost_; }
  // Whether any device of the process was lost or hung: its work may still run in the driver, and tearing
  // the driver down at exit can wait for it (lavapipe finishing a minutes-long dispatch), so main ends the
  // process without that teardown.
  static bool any_lost();

  // The host-visible buffer uploads and downloads go through, in chunks of at most its size: one
  // allocation for the device's life (allocating and pinning hundreds of MB per transfer cost more
  // than the copy). Not thread-safe: transfers run on the thread that drives the device.
  Buffer& staging();
  // Shared by every pipeline made on the device: a kernel's hot and cold runs and each size rebuild
  // their pipelines from the same SPIR-V.
  VkPipelineCache pipeline_cache() const { return pipeline_cache_; }
  // Whether pipelines capture what the compiler made of them (VK_KHR_pipeline_executable_properties), and if not,
  // why not.
  bool captures_pipeline_statistics() const { return captures_statistics_; }
  const std::string& why_no_pipeline_statistics() const { return no_statistics_; }
  // Whether shaders may use doubles: DeviceWants::float64 asked, and the device has them.
  bool float64() const { return float64_; }

 private:
  friend class Submission;
  [[noreturn]] void lose(std::string why);
  uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags wanted, VkMemoryPropertyFlags fallback) const;
  Instance& instance_;
  VkPhysicalDevice physical_;
  DeviceInfo info_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  uint32_t timestamp_valid_bits_ = 0;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  std::vector<VkFence> spare_fences_;  // unsignaled, for the next submissions
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  bool captures_statistics_ = false;
  bool float64_ = false;
  std::string no_statistics_;
  // Long kernels (one invocation over a million boids on lavapipe) need minutes, not the default seconds.
  double submit_timeout_s_ = 600;
  std::string lost_;  // declared before staging_: the staging buffer's destructor reads it
  std::unique_ptr<Buffer> staging_;
};

// A storage buffer in device memory (host-visible where the device offers only that, as lavapipe does).
class Buffer {
 public:
  Buffer(Device& device, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible = false);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  VkDeviceSize size() const { return size_; }

  // Through a staging buffer; blocking.
  void upload(const void* data, VkDeviceSize bytes, VkDeviceSize offset = 0);
  void download(void* data, VkDeviceSize bytes, VkDeviceSize offset = 0);
  // Records a copy of `bytes` from this buffer at `from` into `to` at `at`.
  void record_copy(VkCommandBuffer cmd, const Buffer& to, VkDeviceSize from, VkDeviceSize at, VkDeviceSize bytes) const;
  // A host-visible buffer's memory, mapped for its life; nullptr for device memory.
  unsigned char* mapped() const { return static_cast<unsigned char*>(mapped_); }
  template <class T>
  std::vector<T> download_as(size_t count) {
    std::vector<T> out(count);
    download(out.data(), count * sizeof(T));
    return out;
  }

 private:
  friend class Device;
  Device& device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_;
  void* mapped_ = nullptr;  // set for host-visible buffers
};

// Full memory barrier between recorded commands (compute/transfer/graphics): passes of one kernel and
// the runs around it must never overlap.
void full_barrier(VkCommandBuffer cmd);
// Transfer writes made visible to the host, after copies into a host-visible buffer.
void host_read_barrier(VkCommandBuffer cmd);

}  // namespace shaderwatch
