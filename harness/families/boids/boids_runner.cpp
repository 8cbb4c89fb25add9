// The boids reductions of the positions: serial, groupshared, two-pass sums; min and max by subgroup or
// atomics; additive blending into a 1x1 target; a mip chain of blits.
#include "families/boids/boids_family.h"

namespace shaderwatch {

namespace {

constexpr uint32_t kTwoPassSlices = 64;  // boids_slices.comp SLICES in the catalog

// Graphics pipeline for boids/blend_1x1: points into a 1x1 RGBA32F target with ONE+ONE blending.
class BlendPipeline {
 public:
  BlendPipeline(Device& device, ShaderCompiler& compiler, const KernelSpec& spec, VkBuffer positions)
      : device_(device),
        bindings_(device, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, positions}}, VK_SHADER_STAGE_VERTEX_BIT) {
    VkShaderModule vert = create_shader_module(device, compiler.compile(spec.shaders[0].file, spec.shaders[0].defines));
    VkShaderModule frag = create_shader_module(device, compiler.compile(spec.shaders[1].file, spec.shaders[1].defines));
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = vert;
    stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = frag;
    stages[1].pName = "main";
    VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
    VkViewport viewport{0, 0, 1, 1, 0, 1};
    VkRect2D scissor{{0, 0}, {1, 1}};
    VkPipelineViewportStateCreateInfo viewport_state{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    viewport_state.viewportCount = 1;
    viewport_state.pViewports = &viewport;
    viewport_state.scissorCount = 1;
    viewport_state.pScissors = &scissor;
    VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState blend{};
    blend.blendEnable = VK_TRUE;
    blend.srcColorBlendFactor = blend.dstColorBlendFactor = VK_BLEND_FACTOR_ONE;
    blend.srcAlphaBlendFactor = blend.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
    blend.colorBlendOp = blend.alphaBlendOp = VK_BLEND_OP_ADD;
    blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                           VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo blend_state{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    blend_state.attachmentCount = 1;
    blend_state.pAttachments = &blend;
    const VkFormat format = Image::kFormat;
    VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachmentFormats = &format;
    VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    info.pNext = &rendering;
    info.stageCount = 2;
    info.pStages = stages;
    info.pVertexInputState = &vertex_input;
    info.pInputAssemblyState = &assembly;
    info.pViewportState = &viewport_state;
    info.pRasterizationState = &raster;
    info.pMultisampleState = &multisample;
    info.pColorBlendState = &blend_state;
    info.layout = bindings_.layout();
    const VkResult result = vkCreateGraphicsPipelines(device.handle(), device.pipeline_cache(), 1, &info, nullptr, &pipeline_);
    vkDestroyShaderModule(device.handle(), vert, nullptr);
    vkDestroyShaderModule(device.handle(), frag, nullptr);
    vk_check(result, "vkCreateGraphicsPipelines");
  }
  ~BlendPipeline() {
    if (device_.lost().empty()) vkDestroyPipeline(device_.handle(), pipeline_, nullptr);
  }

  void draw(VkCommandBuffer cmd, const Image& target, uint32_t points) const {
    image_barrier(cmd, target.handle(), 0, 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    VkRenderingAttachmentInfo color{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    color.imageView = target.level0_view();
    color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;  // the sum starts at exactly zero
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    VkRenderingInfo rendering{VK_STRUCTURE_TYPE_RENDERING_INFO};
    rendering.renderArea = {{0, 0}, {1, 1}};
    rendering.layerCount = 1;
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachments = &color;
    vkCmdBeginRendering(cmd, &rendering);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_);
    const VkDescriptorSet set = bindings_.set();
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, bindings_.layout(), 0, 1, &set, 0, nullptr);
    vkCmdDraw(cmd, points, 1, 0, 0);
    vkCmdEndRendering(cmd);
    image_barrier(cmd, target.handle(), 0, 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  }

 private:
  Device& device_;
  Bindings bindings_;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

void copy_texel_to_buffer(VkCommandBuffer cmd, const Image& image, uint32_t level, VkBuffer buffer) {
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
  region.imageExtent = {1, 1, 1};
  vkCmdCopyImageToBuffer(cmd, image.handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, &region);
}

class BoidsRunner final : public FamilyRunner {
 public:
  explicit BoidsRunner(RunContext& c) : method_(c.spec.method), count_(static_cast<uint32_t>(c.problem.items())) {
    const KernelSpec& spec = c.spec;
    Device& device = c.device;
    problem_items = c.problem.items();
    const auto input = RunContext::storage(c.input);
    push_.values[0] = count_;
    switch (method_) {
      case Method::BoidsSerial:
      case Method::BoidsGroupshared:
      case Method::BoidsMinMaxSubgroup:
        output = c.guarded(output_bytes, 2 * kVec4);
        passes_.push_back(c.pipeline(0, std::vector{input, RunContext::storage(*output)}));
        break;
      case Method::BoidsMinMaxAtomic:
        groups_x = static_cast<uint32_t>(ceil_div(problem_items, spec.group_x));
        output = c.guarded(output_bytes, 6 * 4);
        passes_.push_back(c.pipeline(0, std::vector{input, RunContext::storage(*output)}));
        break;
      case Method::BoidsTwoPass:
        partials = c.guarded(partials_bytes, kTwoPassSlices * kVec4);
        output = c.guarded(output_bytes, kVec4);
        passes_.push_back(c.pipeline(0, std::vector{input, RunContext::storage(*partials)}));
        passes_.push_back(c.pipeline(1, std::vector{RunContext::storage(*partials), RunContext::storage(*output)}));
        break;
      case Method::BoidsBlend: {
        const VkFormatFeatureFlags needed = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT;
        if (!device.format_has(Image::kFormat, needed)) throw UnsupportedError("R32G32B32A32_SFLOAT cannot be blended into");
        c.compile(0);  // for the SPIR-V hash; the pipeline compiles them again (cached)
        c.compile(1);
        image_ = std::make_unique<Image>(device, 1, 1, 1, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
        output = c.guarded(output_bytes, kVec4);
        blend_ = std::make_unique<BlendPipeline>(device, c.compiler, spec, c.input.handle());
        break;
      }
      case Method::BoidsMipChain: {
        const VkFormatFeatureFlags needed = VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | VK_FORMAT_FEATURE_BLIT_SRC_BIT |
                                            VK_FORMAT_FEATURE_BLIT_DST_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
        if (!device.format_has(Image::kFormat, needed)) {
          throw UnsupportedError("R32G32B32A32_SFLOAT lacks storage, blit or linear filtering");
        }
        const uint32_t side = mip_chain_side(problem_items);
        image_ = std::make_unique<Image>(device, side, side, tree_levels(side) + 1,
                                         VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                             VK_IMAGE_USAGE_TRANSFER_DST_BIT);
        groups_x = static_cast<uint32_t>(ceil_div(problem_items, spec.group_x));
        output = c.guarded(output_bytes, kVec4);
        passes_.push_back(c.pipeline(0, std::vector{input, Resource{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_NULL_HANDLE, image_->level0_view()}}));
        break;
      }
      default: throw std::logic_error(spec.name + ": not a boids method");
    }
  }

  void record(VkCommandBuffer cmd) const override {
    switch (method_) {
      case Method::BoidsTwoPass: {
        passes_[0]->dispatch(cmd, push_, 1);
        full_barrier(cmd);
        PushConstants second;
        second.values[0] = kTwoPassSlices;
        passes_[1]->dispatch(cmd, second, 1);
        break;
      }
      case Method::BoidsMinMaxAtomic:
        // Identities: min starts at the largest key, max at the smallest; both decode to NaN if untouched.
        vkCmdFillBuffer(cmd, output->handle(), 0, 12, 0xFFFFFFFFu);
        vkCmdFillBuffer(cmd, output->handle(), 12, 12, 0u);
        full_barrier(cmd);
        passes_[0]->dispatch(cmd, push_, groups_x);
        break;
      case Method::BoidsBlend:
        blend_->draw(cmd, *image_, count_);
        copy_texel_to_buffer(cmd, *image_, 0, output->handle());
        break;
      case Method::BoidsMipChain: record_mip_chain(cmd); break;
      default: passes_[0]->dispatch(cmd, push_, groups_x, groups_y); break;
    }
  }

 private:
  void record_mip_chain(VkCommandBuffer cmd) const {
    const Image& img = *image_;
    const uint32_t levels = img.levels();
    image_barrier(cmd, img.handle(), 0, levels, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    const VkClearColorValue zero{};
    const VkImageSubresourceRange level0{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, img.handle(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &level0);
    image_barrier(cmd, img.handle(), 0, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
    passes_[0]->dispatch(cmd, push_, groups_x);
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

  Method method_;
  uint32_t count_;
  PushConstants push_;
  std::vector<std::unique_ptr<ComputePipeline>> passes_;
  std::unique_ptr<Image> image_;
  std::unique_ptr<BlendPipeline> blend_;
};

}  // namespace

std::unique_ptr<FamilyRunner> make_boids_runner(RunContext& context) { return std::make_unique<BoidsRunner>(context); }

}  // namespace shaderwatch
