// The mip-chain boids method (boids_scatter.comp): the positions scattered into a square power-of-two image,
// then vkCmdBlitImage halves it level by level down to 1x1, which holds the average over the texels (w: the
// fraction of texels with a boid).
#include "families/boids/boids_method.h"

namespace shaderwatch {

namespace {

class MipChainRunner final : public BoidsRunner {
 public:
  explicit MipChainRunner(RunContext& c) : BoidsRunner(c) {
    Device& device = c.device;
    const VkFormatFeatureFlags needed = VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | VK_FORMAT_FEATURE_BLIT_SRC_BIT |
                                        VK_FORMAT_FEATURE_BLIT_DST_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
    if (!device.format_has(Image::kFormat, needed)) {
      throw UnsupportedError("R32G32B32A32_SFLOAT lacks storage, blit or linear filtering");
    }
    const uint32_t side = mip_chain_side(problem_items);
    image_ = std::make_unique<Image>(device, side, side, tree_levels(side) + 1,
                                     VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                         VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    groups_x = static_cast<uint32_t>(ceil_div(problem_items, c.spec.group_x));
    output = c.guarded(output_bytes, kVec4);
    scatter_ = c.pipeline(0, std::vector{RunContext::storage(c.input),
                                         Resource{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_NULL_HANDLE, image_->level0_view()}});
  }

  void record(VkCommandBuffer cmd) const override {
    const Image& img = *image_;
    const uint32_t levels = img.levels();
    image_barrier(cmd, img.handle(), 0, levels, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    const VkClearColorValue zero{};
    const VkImageSubresourceRange level0{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, img.handle(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &level0);
    image_barrier(cmd, img.handle(), 0, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
    scatter_->dispatch(cmd, push_, groups_x);
    image_barrier(cmd, img.handle(), 0, 1, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    for (uint32_t level = 1; level < levels; ++level) {
      const int32_t src = static_cast<int32_t>(1u << (levels - level));  // side of level - 1
      VkImageBlit blit{};
      blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level - 1, 0, 1};
      blit.srcOffsets[1] = {src, src, 1};
      blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
      blit.dstOffsets[1] = {src / 2, src / 2, 1};
      vkCmdBlitImage(cmd, img.handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, img.handle(),
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
      image_barrier(cmd, img.handle(), level, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    }
    copy_texel_to_buffer(cmd, img, levels - 1, output->handle());
  }

 private:
  std::unique_ptr<ComputePipeline> scatter_;
  std::unique_ptr<Image> image_;
};

class MipChain final : public KernelMethod {
 public:
  std::unique_ptr<FamilyRunner> make_runner(RunContext& context) const override {
    return std::make_unique<MipChainRunner>(context);
  }
  // The texels' average times side^2, a power of two: exact.
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    const double side = mip_chain_side(problem.count);
    return boids_sums_check(spec, problem, shape, side * side, true);
  }
};

}  // namespace

const KernelMethod& boids_mip_chain_method() {
  static const MipChain method;
  return method;
}

}  // namespace shaderwatch
