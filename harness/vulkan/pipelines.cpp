#include "vulkan/pipelines.h"

#include <algorithm>

#include "vulkan/spirv_module.h"

namespace shaderwatch {

Bindings::Bindings(Device& device, const std::vector<Resource>& resources, VkShaderStageFlags stages)
    : device_(device) {
  std::vector<VkDescriptorSetLayoutBinding> layout_bindings;
  std::vector<VkDescriptorPoolSize> sizes;
  for (uint32_t i = 0; i < resources.size(); ++i) {
    layout_bindings.push_back({i, resources[i].type, 1, stages, nullptr});
    sizes.push_back({resources[i].type, 1});
  }
  VkDescriptorSetLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  layout_info.bindingCount = static_cast<uint32_t>(layout_bindings.size());
  layout_info.pBindings = layout_bindings.data();
  vk_check(vkCreateDescriptorSetLayout(device.handle(), &layout_info, nullptr, &set_layout_),
           "vkCreateDescriptorSetLayout");

  VkPushConstantRange push{stages, 0, sizeof(PushConstants)};
  VkPipelineLayoutCreateInfo pipeline_layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pipeline_layout_info.setLayoutCount = 1;
  pipeline_layout_info.pSetLayouts = &set_layout_;
  pipeline_layout_info.pushConstantRangeCount = 1;
  pipeline_layout_info.pPushConstantRanges = &push;
  vk_check(vkCreatePipelineLayout(device.handle(), &pipeline_layout_info, nullptr, &pipeline_layout_),
           "vkCreatePipelineLayout");
  if (resources.empty()) return;

  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = static_cast<uint32_t>(sizes.size());
  pool_info.pPoolSizes = sizes.data();
  vk_check(vkCreateDescriptorPool(device.handle(), &pool_info, nullptr, &pool_), "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool_;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &set_layout_;
  vk_check(vkAllocateDescriptorSets(device.handle(), &alloc, &set_), "vkAllocateDescriptorSets");

  std::vector<VkDescriptorBufferInfo> buffer_infos(resources.size());
  std::vector<VkDescriptorImageInfo> image_infos(resources.size());
  std::vector<VkWriteDescriptorSet> writes;
  for (uint32_t i = 0; i < resources.size(); ++i) {
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set_;
    w.dstBinding = i;
    w.descriptorCount = 1;
    w.descriptorType = resources[i].type;
    if (resources[i].type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE) {
      image_infos[i] = {VK_NULL_HANDLE, resources[i].image_view, VK_IMAGE_LAYOUT_GENERAL};
      w.pImageInfo = &image_infos[i];
    } else {
      buffer_infos[i] = {resources[i].buffer, 0, VK_WHOLE_SIZE};
      w.pBufferInfo = &buffer_infos[i];
    }
    writes.push_back(w);
  }
  vkUpdateDescriptorSets(device.handle(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
}

Bindings::~Bindings() {
  if (!device_.lost().empty()) return;  // work on a hung device may still use it
  vkDestroyPipelineLayout(device_.handle(), pipeline_layout_, nullptr);
  if (pool_) vkDestroyDescriptorPool(device_.handle(), pool_, nullptr);
  vkDestroyDescriptorSetLayout(device_.handle(), set_layout_, nullptr);
}

VkShaderModule create_shader_module(Device& device, const std::vector<uint32_t>& spirv) {
  // A CPU device (lavapipe) takes minutes over loops unrolled whole: it gets them without the hint (spirv_module.h).
  const bool cpu = device.info().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const std::vector<uint32_t> stripped = cpu ? without_unroll_hints(spirv) : std::vector<uint32_t>{};
  const std::vector<uint32_t>& code = cpu ? stripped : spirv;  // a GPU's module as compiled, not copied
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = code.size() * sizeof(uint32_t);
  info.pCode = code.data();
  VkShaderModule module;
  vk_check(vkCreateShaderModule(device.handle(), &info, nullptr, &module), "vkCreateShaderModule");
  return module;
}

ComputePipeline::ComputePipeline(Device& device, const std::vector<uint32_t>& spirv,
                                 const std::vector<Resource>& resources, const std::vector<uint32_t>& specialization,
                                 uint32_t subgroup_size)
    : device_(device), bindings_(device, resources, VK_SHADER_STAGE_COMPUTE_BIT) {
  std::vector<VkSpecializationMapEntry> entries;
  for (uint32_t i = 0; i < specialization.size(); ++i) entries.push_back({i, i * 4u, 4});
  VkSpecializationInfo spec_info{static_cast<uint32_t>(entries.size()), entries.data(), specialization.size() * 4,
                                 specialization.data()};
  VkShaderModule module = create_shader_module(device, spirv);
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  if (!specialization.empty()) info.stage.pSpecializationInfo = &spec_info;
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  required.requiredSubgroupSize = subgroup_size;
  if (subgroup_size) info.stage.pNext = &required;
  info.layout = bindings_.layout();
  info.flags |= statistics_flags(device);
  const VkResult result = vkCreateComputePipelines(device.handle(), device.pipeline_cache(), 1, &info, nullptr, &pipeline_);
  vkDestroyShaderModule(device.handle(), module, nullptr);
  vk_check(result, "vkCreateComputePipelines");
  executables_ = pipeline_executables(device, pipeline_);
}

ComputePipeline::~ComputePipeline() {
  if (device_.lost().empty()) vkDestroyPipeline(device_.handle(), pipeline_, nullptr);
}

void ComputePipeline::dispatch(VkCommandBuffer cmd, const PushConstants& push, uint32_t groups_x,
                               uint32_t groups_y) const {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  const VkDescriptorSet set = bindings_.set();
  if (set) vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, bindings_.layout(), 0, 1, &set, 0, nullptr);
  vkCmdPushConstants(cmd, bindings_.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
  vkCmdDispatch(cmd, groups_x, groups_y, 1);
}

uint32_t grid_stride_groups(const DeviceInfo& info, uint64_t items, uint32_t group_size) {
  const uint64_t fill = info.sm_count ? uint64_t{info.sm_count} * (2048 / group_size) : 64;
  return static_cast<uint32_t>(std::max<uint64_t>(1, std::min(fill, (items + group_size - 1) / group_size)));
}

Image::Image(Device& device, uint32_t width, uint32_t height, uint32_t levels, VkImageUsageFlags usage)
    : device_(device), levels_(levels) {
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = kFormat;
  info.extent = {width, height, 1};
  info.mipLevels = levels;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  vk_check(vkCreateImage(device.handle(), &info, nullptr, &image_), "vkCreateImage");
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(device.handle(), image_, &req);
  memory_ = device.allocate(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  vk_check(vkBindImageMemory(device.handle(), image_, memory_, 0), "vkBindImageMemory");
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = image_;
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = kFormat;
  view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vk_check(vkCreateImageView(device.handle(), &view, nullptr, &view_), "vkCreateImageView");
}

Image::~Image() {
  if (!device_.lost().empty()) return;  // work on a hung device may still use it
  vkDestroyImageView(device_.handle(), view_, nullptr);
  vkDestroyImage(device_.handle(), image_, nullptr);
  vkFreeMemory(device_.handle(), memory_, nullptr);
}

void image_barrier(VkCommandBuffer cmd, VkImage image, uint32_t base_level, uint32_t level_count, VkImageLayout from,
                   VkImageLayout to) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, base_level, level_count, 0, 1};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0,
                       nullptr, 1, &b);
}

}  // namespace shaderwatch
