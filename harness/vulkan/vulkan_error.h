#pragma once
#include <stdexcept>
#include <string>

#include <volk.h>

namespace shaderwatch {

// Thrown for every failed Vulkan call or unusable device. The message names the call and the result; the
// runner appends the kernel and device it was working on, so a user sees all three.
class VulkanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The device is gone for this process: VK_ERROR_DEVICE_LOST, or a submission that did not finish within the
// timeout (a hang). Nothing more runs on it; the runs report it and the other devices go on.
class DeviceLostError : public VulkanError {
 public:
  using VulkanError::VulkanError;
};

// A device or driver that lacks what a kernel needs: reported as "unsupported", never as a pass.
class UnsupportedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const char* vk_result_name(VkResult result);

inline void vk_check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) {
    throw VulkanError(std::string(call) + " failed: " + vk_result_name(result));
  }
}

}  // namespace shaderwatch
