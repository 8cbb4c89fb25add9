#include "vulkan/vulkan_context.h"

#include "shaderwatch/driver_version.h"

#include "common/exit_status.h"

#include <atomic>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace shaderwatch {

const char* vk_result_name(VkResult result) {
  switch (result) {
#define SW_CASE(r) \
  case r:          \
    return #r;
    SW_CASE(VK_SUCCESS)
    SW_CASE(VK_NOT_READY)
    SW_CASE(VK_TIMEOUT)
    SW_CASE(VK_INCOMPLETE)
    SW_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    SW_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    SW_CASE(VK_ERROR_INITIALIZATION_FAILED)
    SW_CASE(VK_ERROR_DEVICE_LOST)
    SW_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    SW_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    SW_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    SW_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    SW_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    SW_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    SW_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    SW_CASE(VK_ERROR_FRAGMENTED_POOL)
    SW_CASE(VK_ERROR_UNKNOWN)
    SW_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    SW_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef SW_CASE
    default:
      return "VkResult (unnamed)";
  }
}

std::vector<uint32_t> DeviceInfo::requirable_subgroup_sizes(uint32_t invocations) const {
  std::vector<uint32_t> sizes;
  if (!compute_subgroup_size_control || min_subgroup_size == 0 || min_subgroup_size > max_subgroup_size) return sizes;
  for (uint32_t size = min_subgroup_size; size && size <= max_subgroup_size; size *= 2) {
    if (uint64_t{size} * max_compute_workgroup_subgroups >= invocations) sizes.push_back(size);
  }
  return sizes;
}

std::string DeviceInfo::type_name() const {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

std::string DeviceInfo::api_version_string() const {
  std::ostringstream s;
  s << VK_API_VERSION_MAJOR(api_version) << '.' << VK_API_VERSION_MINOR(api_version) << '.'
    << VK_API_VERSION_PATCH(api_version);
  return s.str();
}

std::string DeviceInfo::driver_version_string() const {
  return shaderwatch::contract::driver_version_text(vendor_id, static_cast<uint32_t>(driver_id), driver_version);
}

void ValidationLog::add(std::string message) {
  std::lock_guard lock(mutex_);
  messages_.push_back(std::move(message));
}
std::vector<std::string> ValidationLog::take() {
  std::lock_guard lock(mutex_);
  return std::exchange(messages_, {});
}
size_t ValidationLog::count() const {
  std::lock_guard lock(mutex_);
  return messages_.size();
}

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  const char* level = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning";
  static_cast<ValidationLog*>(user)->add(std::string("validation ") + level + ": " +
                                         (data && data->pMessage ? data->pMessage : "(no message)"));
  return VK_FALSE;
}

bool has_layer(const char* name) {
  uint32_t count = 0;
  vk_check(vkEnumerateInstanceLayerProperties(&count, nullptr), "vkEnumerateInstanceLayerProperties");
  std::vector<VkLayerProperties> layers(count);
  vk_check(vkEnumerateInstanceLayerProperties(&count, layers.data()), "vkEnumerateInstanceLayerProperties");
  return std::any_of(layers.begin(), layers.end(), [&](const auto& l) { return std::strcmp(l.layerName, name) == 0; });
}

bool has_device_extension(VkPhysicalDevice pd, const char* name) {
  uint32_t count = 0;
  vk_check(vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, nullptr), "vkEnumerateDeviceExtensionProperties");
  std::vector<VkExtensionProperties> exts(count);
  vk_check(vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, exts.data()),
           "vkEnumerateDeviceExtensionProperties");
  return std::any_of(exts.begin(), exts.end(), [&](const auto& e) { return std::strcmp(e.extensionName, name) == 0; });
}

DeviceInfo describe(VkPhysicalDevice pd, uint32_t index) {
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlProperties size_control{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  props.pNext = &driver;
  driver.pNext = &ids;
  ids.pNext = &subgroup;
  void** tail = &subgroup.pNext;
  VkPhysicalDeviceProperties basic;
  vkGetPhysicalDeviceProperties(pd, &basic);
  const bool has_size_control = basic.apiVersion >= VK_API_VERSION_1_3 ||
                                has_device_extension(pd, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  if (has_size_control) {
    *tail = &size_control;
    tail = &size_control.pNext;
  }
  const bool has_sm = has_device_extension(pd, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  if (has_sm) *tail = &sm;
  vkGetPhysicalDeviceProperties2(pd, &props);

  DeviceInfo d;
  d.index = index;
  d.name = props.properties.deviceName;
  d.type = props.properties.deviceType;
  d.vendor_id = props.properties.vendorID;
  d.device_id = props.properties.deviceID;
  d.driver_id = driver.driverID;
  d.driver_name = driver.driverName;
  d.driver_info = driver.driverInfo;
  d.driver_version = props.properties.driverVersion;
  d.api_version = props.properties.apiVersion;
  std::copy(std::begin(ids.deviceUUID), std::end(ids.deviceUUID), d.device_uuid.begin());
  std::copy(std::begin(ids.driverUUID), std::end(ids.driverUUID), d.driver_uuid.begin());
  d.subgroup_size = subgroup.subgroupSize;
  d.subgroup_operations = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ? subgroup.supportedOperations : 0;
  if (has_size_control) {
    d.min_subgroup_size = size_control.minSubgroupSize;
    d.max_subgroup_size = size_control.maxSubgroupSize;
    // subgroupSizeControl is a required feature in Vulkan 1.3 (the harness needs 1.3); the stages say where.
    d.compute_subgroup_size_control = (size_control.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
    d.max_compute_workgroup_subgroups = size_control.maxComputeWorkgroupSubgroups;
  }
  if (has_sm) d.sm_count = sm.shaderSMCount;
  if (has_device_extension(pd, VK_KHR_SHADER_CLOCK_EXTENSION_NAME)) {
    VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &clock;
    vkGetPhysicalDeviceFeatures2(pd, &features);
    d.subgroup_clock = clock.shaderSubgroupClock;
  }
  d.timestamp_period = props.properties.limits.timestampPeriod;
  d.max_workgroup_invocations = props.properties.limits.maxComputeWorkGroupInvocations;
  d.max_storage_buffer_range = props.properties.limits.maxStorageBufferRange;
  d.max_workgroup_count_x = props.properties.limits.maxComputeWorkGroupCount[0];
  d.max_workgroup_count_y = props.properties.limits.maxComputeWorkGroupCount[1];
  return d;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

Instance::Instance(bool validation) {
  if (volkInitialize() != VK_SUCCESS) {
    throw VulkanError(
        "no Vulkan loader found (libvulkan.so.1): install libvulkan1 and a driver (mesa-vulkan-drivers provides "
        "lavapipe, a CPU device)");
  }
  if (volkGetInstanceVersion() < VK_API_VERSION_1_3) {
    throw VulkanError("the Vulkan loader supports only " + std::to_string(VK_API_VERSION_MAJOR(volkGetInstanceVersion())) +
                      "." + std::to_string(VK_API_VERSION_MINOR(volkGetInstanceVersion())) +
                      "; shaderwatch needs Vulkan 1.3");
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "shaderwatch";
  app.apiVersion = VK_API_VERSION_1_3;

  std::vector<const char*> layers, extensions;
  if (validation) {
    if (!has_layer("VK_LAYER_KHRONOS_validation")) {
      throw VulkanError("validation requested but VK_LAYER_KHRONOS_validation is not installed (vulkan-validationlayers)");
    }
    layers.push_back("VK_LAYER_KHRONOS_validation");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = on_validation_message;
  messenger_info.pUserData = &validation_log_;

  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (validation) info.pNext = &messenger_info;  // also catches messages from instance creation itself
  vk_check(vkCreateInstance(&info, nullptr, &instance_), "vkCreateInstance");
  // volk's function pointers are the process's: loaded once, from the first instance (the loader's trampolines
  // dispatch on the handle, so they serve every instance and device). A later instance loading its own (the CPU
  // device's, for reference shaders) would replace them, its extensions' with null where it has not enabled them:
  // the first instance's messenger was then destroyed through a null pointer. Its own extensions, each instance
  // looks up for itself.
  static std::once_flag volk_loaded;
  std::call_once(volk_loaded, [&] { volkLoadInstance(instance_); });
  if (validation) {
    const auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (!create || !destroy_messenger_) throw VulkanError("the validation layer's loader has no VK_EXT_debug_utils");
    vk_check(create(instance_, &messenger_info, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
  }

  uint32_t count = 0;
  vk_check(vkEnumeratePhysicalDevices(instance_, &count, nullptr), "vkEnumeratePhysicalDevices");
  physical_devices_.resize(count);
  vk_check(vkEnumeratePhysicalDevices(instance_, &count, physical_devices_.data()), "vkEnumeratePhysicalDevices");
  physical_devices_.resize(count);
  if (count == 0) {
    throw VulkanError(
        "no Vulkan device found: install a driver (mesa-vulkan-drivers provides lavapipe, a CPU device) or check "
        "VK_DRIVER_FILES / VK_ICD_FILENAMES");
  }
  for (uint32_t i = 0; i < count; ++i) devices_.push_back(describe(physical_devices_[i], i));
}

Instance::~Instance() {
  // A lost or hung device was never destroyed: destroying the instance under it is invalid (and lavapipe
  // would wait for the hung work). The process is ending; leave the driver as it is.
  if (Device::any_lost()) return;
  if (messenger_) destroy_messenger_(instance_, messenger_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

uint32_t Instance::select(const std::string& selector) const {
  if (selector.empty()) {
    for (VkPhysicalDeviceType t : {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
                                   VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU, VK_PHYSICAL_DEVICE_TYPE_CPU}) {
      for (const auto& d : devices_)
        if (d.type == t) return d.index;
    }
    return 0;
  }
  if (std::all_of(selector.begin(), selector.end(), [](unsigned char c) { return std::isdigit(c); })) {
    const unsigned long index = std::stoul(selector);
    if (index < devices_.size()) return static_cast<uint32_t>(index);
  } else {
    for (const auto& d : devices_)
      if (lower(d.name).find(lower(selector)) != std::string::npos) return d.index;
  }
  std::string choices;
  for (const auto& d : devices_) choices += "\n  " + std::to_string(d.index) + ": " + d.name;
  throw UsageError("--device '" + selector + "' matches no device; devices:" + choices);
}

Device::Device(Instance& instance, uint32_t index, const DeviceWants& wants)
    : instance_(instance), physical_(instance.physical_device(index)), info_(instance.devices().at(index)) {
  if (info_.api_version < VK_API_VERSION_1_3) {
    throw UnsupportedError(info_.name + " supports Vulkan " + info_.api_version_string() +
                           "; shaderwatch needs 1.3 (dynamic rendering, subgroup size control)");
  }
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &family_count, families.data());
  const VkQueueFlags needed = VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT;
  bool found = false;
  for (uint32_t i = 0; i < family_count && !found; ++i) {
    if ((families[i].queueFlags & needed) == needed) {
      queue_family_ = i;
      timestamp_valid_bits_ = families[i].timestampValidBits;
      found = true;
    }
  }
  if (!found) throw UnsupportedError(info_.name + " has no queue family with both graphics and compute");

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;

  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executables{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  const bool has_executables = has_device_extension(physical_, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  VkPhysicalDeviceFeatures2 available{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  available.pNext = &v12;
  v12.pNext = &v13;
  if (has_executables) v13.pNext = &executables;
  vkGetPhysicalDeviceFeatures2(physical_, &available);
  if (!v13.dynamicRendering || !v13.synchronization2) {
    throw UnsupportedError(info_.name + " lacks dynamicRendering or synchronization2");
  }

  // Enable only what kernels use; the rest stays off so validation catches a kernel that needs more.
  VkPhysicalDeviceVulkan13Features enable13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  enable13.dynamicRendering = VK_TRUE;
  enable13.synchronization2 = VK_TRUE;  // vkCmdWriteTimestamp2
  enable13.subgroupSizeControl = v13.subgroupSizeControl;
  enable13.computeFullSubgroups = v13.computeFullSubgroups;
  enable13.maintenance4 = v13.maintenance4;  // glslang emits LocalSizeId for SPIR-V 1.6
  VkPhysicalDeviceVulkan12Features enable12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  enable12.vulkanMemoryModel = v12.vulkanMemoryModel;
  enable12.vulkanMemoryModelDeviceScope = v12.vulkanMemoryModelDeviceScope;
  enable12.pNext = &enable13;
  VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  enable.pNext = &enable12;
  float64_ = wants.float64 && available.features.shaderFloat64;
  enable.features.shaderFloat64 = float64_;
  // What the compiler made of each pipeline (pipeline_statistics.h), where the driver tells.
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR enable_executables{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  std::vector<const char*> extensions;
  if (has_executables && executables.pipelineExecutableInfo) {
    enable_executables.pipelineExecutableInfo = VK_TRUE;
    enable_executables.pNext = enable13.pNext;
    enable13.pNext = &enable_executables;
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    captures_statistics_ = true;
  } else {
    no_statistics_ = has_executables ? "pipelineExecutableInfo is not supported"
                                     : "no " VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
  }

  VkPhysicalDeviceShaderClockFeaturesKHR enable_clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  if (wants.shader_clock) {
    if (!info_.subgroup_clock) {
      throw UnsupportedError(info_.name + " has no subgroup shader clock (" VK_KHR_SHADER_CLOCK_EXTENSION_NAME
                             "'s shaderSubgroupClock), which the race delays read");
    }
    enable_clock.shaderSubgroupClock = VK_TRUE;
    enable_clock.pNext = enable13.pNext;
    enable13.pNext = &enable_clock;
    extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  }

  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &enable;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  vk_check(vkCreateDevice(physical_, &info, nullptr, &device_), "vkCreateDevice");
  // No volkLoadDevice: the loader's trampolines dispatch on the VkDevice, so several devices can be open at
  // once (--device all); the indirection costs nanoseconds on the host and nothing on the GPU.
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);

  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = queue_family_;
  vk_check(vkCreateCommandPool(device_, &pool_info, nullptr, &pool_), "vkCreateCommandPool");
  VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  vk_check(vkCreatePipelineCache(device_, &cache_info, nullptr, &pipeline_cache_), "vkCreatePipelineCache");
}

Device::~Device() {
  if (device_ && lost_.empty()) {  // a lost or hung device is left alone: destroying what runs is undefined
    vkDeviceWaitIdle(device_);  // result ignored: nothing useful to do with an error in a destructor
    staging_.reset();
    vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
    for (VkFence fence : spare_fences_) vkDestroyFence(device_, fence, nullptr);
    vkDestroyCommandPool(device_, pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
}

uint32_t Device::memory_type(uint32_t type_bits, VkMemoryPropertyFlags wanted, VkMemoryPropertyFlags fallback) const {
  for (VkMemoryPropertyFlags flags : {wanted, fallback}) {
    for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
      if ((type_bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & flags) == flags) return i;
    }
  }
  throw VulkanError("no memory type on " + info_.name + " with the needed properties");
}

VkDeviceMemory Device::allocate(const VkMemoryRequirements& requirements, VkMemoryPropertyFlags wanted,
                                VkMemoryPropertyFlags fallback) const {
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = requirements.size;
  alloc.memoryTypeIndex = memory_type(requirements.memoryTypeBits, wanted, fallback);
  VkDeviceMemory memory;
  vk_check(vkAllocateMemory(device_, &alloc, nullptr, &memory), "vkAllocateMemory");
  return memory;
}

bool Device::format_has(VkFormat format, VkFormatFeatureFlags features) const {
  VkFormatProperties props;
  vkGetPhysicalDeviceFormatProperties(physical_, format, &props);
  return (props.optimalTilingFeatures & features) == features;
}

namespace {
std::atomic<bool> any_device_lost{false};
}  // namespace

bool Device::any_lost() { return any_device_lost.load(); }

void Device::lose(std::string why) {
  lost_ = std::move(why);
  any_device_lost.store(true);
  throw DeviceLostError(info_.name + ": " + lost_);
}

void Device::submit_and_wait(const std::function<void(VkCommandBuffer)>& record) { submit(record).wait(); }

Submission Device::submit(const std::function<void(VkCommandBuffer)>& record) {
  if (!lost_.empty()) throw DeviceLostError(info_.name + " was lost earlier: " + lost_);
  VkFence fence = VK_NULL_HANDLE;
  if (spare_fences_.empty()) {
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vk_check(vkCreateFence(device_, &fence_info, nullptr, &fence), "vkCreateFence");
  } else {
    fence = spare_fences_.back();
    spare_fences_.pop_back();
  }
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  const VkResult allocated = vkAllocateCommandBuffers(device_, &alloc, &cmd);
  if (allocated != VK_SUCCESS) spare_fences_.push_back(fence);
  vk_check(allocated, "vkAllocateCommandBuffers");
  // From here the submission owns the command buffer and the fence; unsubmitted, its wait returns at once.
  Submission pending(*this, cmd, fence);
  pending.waited_ = true;
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vk_check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
  record(cmd);
  vk_check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  const VkResult result = vkQueueSubmit(queue_, 1, &submit, fence);
  if (result == VK_ERROR_DEVICE_LOST) lose("vkQueueSubmit failed: VK_ERROR_DEVICE_LOST");
  vk_check(result, "vkQueueSubmit");
  pending.waited_ = false;
  return pending;
}

Submission::Submission(Submission&& other) noexcept
    : device_(other.device_), cmd_(other.cmd_), fence_(other.fence_), waited_(other.waited_) {
  other.device_ = nullptr;
}

void Submission::wait() {
  if (!device_ || waited_) return;
  Device& d = *device_;
  if (!d.lost_.empty()) throw DeviceLostError(d.info_.name + " was lost earlier: " + d.lost_);
  const auto timeout_ns = static_cast<uint64_t>(d.submit_timeout_s_ * 1e9);
  const VkResult result = vkWaitForFences(d.device_, 1, &fence_, VK_TRUE, timeout_ns);
  if (result == VK_ERROR_DEVICE_LOST) d.lose("vkWaitForFences failed: VK_ERROR_DEVICE_LOST");
  if (result == VK_TIMEOUT) {
    char text[160];
    std::snprintf(text, sizeof text, "a submission did not finish within %.0f s (a hang?); nothing more runs on it",
                  d.submit_timeout_s_);
    d.lose(text);
  }
  vk_check(result, "vkWaitForFences");
  waited_ = true;
}

void Submission::release() {
  Device& d = *device_;
  if (!d.lost_.empty()) return;  // a hung command buffer may still be pending: leave it and its fence alone
  vkFreeCommandBuffers(d.device_, d.pool_, 1, &cmd_);
  if (vkResetFences(d.device_, 1, &fence_) == VK_SUCCESS) {
    d.spare_fences_.push_back(fence_);
  } else {
    vkDestroyFence(d.device_, fence_, nullptr);
  }
}

Submission::~Submission() {
  if (!device_) return;
  try {
    wait();  // abandoned on an exception: the GPU may still read what its owner is about to free
  } catch (const std::exception&) {
    // The device is marked lost; release() then leaves its objects alone.
  }
  release();
}

Buffer::Buffer(Device& device, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible)
    : device_(device), size_(size) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vk_check(vkCreateBuffer(device.handle(), &info, nullptr, &buffer_), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device.handle(), buffer_, &req);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  memory_ = host_visible ? device.allocate(req, host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, host)
                         : device.allocate(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  vk_check(vkBindBufferMemory(device.handle(), buffer_, memory_, 0), "vkBindBufferMemory");
  if (host_visible) vk_check(vkMapMemory(device.handle(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
}

Buffer::~Buffer() {
  if (!device_.lost().empty()) return;  // work on a hung device may still use it
  if (mapped_) vkUnmapMemory(device_.handle(), memory_);
  vkDestroyBuffer(device_.handle(), buffer_, nullptr);
  vkFreeMemory(device_.handle(), memory_, nullptr);
}

Buffer& Device::staging() {
  constexpr VkDeviceSize kStagingBytes = VkDeviceSize{64} << 20;
  if (!staging_) staging_ = std::make_unique<Buffer>(*this, kStagingBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
  return *staging_;
}

void Buffer::upload(const void* data, VkDeviceSize bytes, VkDeviceSize offset) {
  if (offset + bytes > size_) throw std::out_of_range("Buffer::upload past the end of the buffer");
  Buffer& staging = device_.staging();
  for (VkDeviceSize done = 0; done < bytes; done += staging.size_) {
    const VkDeviceSize chunk = std::min(staging.size_, bytes - done);
    std::memcpy(staging.mapped_, static_cast<const char*>(data) + done, chunk);
    device_.submit_and_wait([&](VkCommandBuffer cmd) {
      VkBufferCopy region{0, offset + done, chunk};
      vkCmdCopyBuffer(cmd, staging.buffer_, buffer_, 1, &region);
    });
  }
}

void Buffer::download(void* data, VkDeviceSize bytes, VkDeviceSize offset) {
  if (offset + bytes > size_) throw std::out_of_range("Buffer::download past the end of the buffer");
  Buffer& staging = device_.staging();
  for (VkDeviceSize done = 0; done < bytes; done += staging.size_) {
    const VkDeviceSize chunk = std::min(staging.size_, bytes - done);
    device_.submit_and_wait([&](VkCommandBuffer cmd) {
      full_barrier(cmd);
      record_copy(cmd, staging, offset + done, 0, chunk);
      host_read_barrier(cmd);
    });
    std::memcpy(static_cast<char*>(data) + done, staging.mapped_, chunk);
  }
}

void Buffer::record_copy(VkCommandBuffer cmd, const Buffer& to, VkDeviceSize from, VkDeviceSize at,
                         VkDeviceSize bytes) const {
  if (from + bytes > size_ || at + bytes > to.size_) throw std::out_of_range("Buffer::record_copy past the end of a buffer");
  const VkBufferCopy region{from, at, bytes};
  vkCmdCopyBuffer(cmd, buffer_, to.buffer_, 1, &region);
}

void host_read_barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0,
                       nullptr);
}

void full_barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
}

}  // namespace shaderwatch
