// What the boids methods' runners share.
#include "families/boids/boids_method.h"

namespace shaderwatch {

BoidsRunner::BoidsRunner(const RunContext& c) : count_(static_cast<uint32_t>(c.problem.items())) {
  problem_items = c.problem.items();
  push_.values[0] = count_;
}

void copy_texel_to_buffer(VkCommandBuffer cmd, const Image& image, uint32_t level, VkBuffer buffer) {
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
  region.imageExtent = {1, 1, 1};
  vkCmdCopyImageToBuffer(cmd, image.handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, &region);
}

}  // namespace shaderwatch
