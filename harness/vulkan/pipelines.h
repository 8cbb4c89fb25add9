#pragma once
// Compute pipelines with their descriptor sets, and images: the pieces the kernel runs are built from.
#include <cstdint>
#include <cstring>
#include <vector>

#include "vulkan/pipeline_statistics.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

// Every kernel pushes at most 64 bytes: uints, and floats stored bit for bit (postfx.glsl).
struct PushConstants {  // 128 bytes: the least maxPushConstantsSize Vulkan guarantees
  uint32_t values[32] = {};
  void set_float(size_t index, float value) { std::memcpy(&values[index], &value, sizeof value); }
};

struct Resource {
  VkDescriptorType type;
  VkBuffer buffer = VK_NULL_HANDLE;     // storage buffers: bound whole
  VkImageView image_view = VK_NULL_HANDLE;  // storage images, in VK_IMAGE_LAYOUT_GENERAL
};

// A descriptor set layout, pool and set for `resources` at bindings 0..n-1, and a pipeline layout.
class Bindings {
 public:
  Bindings(Device& device, const std::vector<Resource>& resources, VkShaderStageFlags stages);
  ~Bindings();
  Bindings(const Bindings&) = delete;
  Bindings& operator=(const Bindings&) = delete;
  VkPipelineLayout layout() const { return pipeline_layout_; }
  VkDescriptorSet set() const { return set_; }

 private:
  Device& device_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
};

VkShaderModule create_shader_module(Device& device, const std::vector<uint32_t>& spirv);

class ComputePipeline {
 public:
  // specialization[i] is the value of constant_id i (32-bit). subgroup_size: the size the pipeline must run
  // at (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo), 0 for the device's choice.
  ComputePipeline(Device& device, const std::vector<uint32_t>& spirv, const std::vector<Resource>& resources,
                  const std::vector<uint32_t>& specialization = {}, uint32_t subgroup_size = 0);
  ~ComputePipeline();
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;
  void dispatch(VkCommandBuffer cmd, const PushConstants& push, uint32_t groups_x, uint32_t groups_y = 1) const;
  // What the driver compiled, where the device tells (Device::captures_pipeline_statistics()); else empty.
  const std::vector<PipelineExecutable>& executables() const { return executables_; }

 private:
  Device& device_;
  Bindings bindings_;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  std::vector<PipelineExecutable> executables_;
};

// Workgroups for a grid-stride loop over `items` that fills the device: 8 groups of 256 invocations per
// NVIDIA SM (2048 resident threads) where the SM count is known, else 64; never more than the work.
uint32_t grid_stride_groups(const DeviceInfo& info, uint64_t items, uint32_t group_size);

// A 2-D RGBA32F image with `levels` mip levels and a view of level 0.
class Image {
 public:
  Image(Device& device, uint32_t width, uint32_t height, uint32_t levels, VkImageUsageFlags usage);
  ~Image();
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;
  VkImage handle() const { return image_; }
  VkImageView level0_view() const { return view_; }
  uint32_t levels() const { return levels_; }
  static constexpr VkFormat kFormat = VK_FORMAT_R32G32B32A32_SFLOAT;

 private:
  Device& device_;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  uint32_t levels_;
};

// Layout transition of mip levels [base, base + count) with a full memory dependency.
void image_barrier(VkCommandBuffer cmd, VkImage image, uint32_t base_level, uint32_t level_count, VkImageLayout from,
                   VkImageLayout to);

}  // namespace shaderwatch
