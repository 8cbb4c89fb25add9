// The blending boids method (boids_blend.vert/.frag): the positions drawn as points into a 1x1 RGBA32F target
// with ONE+ONE blending, the sum in its one texel (w counts the points).
#include "families/boids/boids_method.h"

namespace shaderwatch {

namespace {

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
    info.flags |= statistics_flags(device);
    const VkResult result = vkCreateGraphicsPipelines(device.handle(), device.pipeline_cache(), 1, &info, nullptr, &pipeline_);
    vkDestroyShaderModule(device.handle(), vert, nullptr);
    vkDestroyShaderModule(device.handle(), frag, nullptr);
    vk_check(result, "vkCreateGraphicsPipelines");
    executables_ = pipeline_executables(device, pipeline_);
  }
  // What the driver compiled (its vertex and fragment stages), where the device tells.
  const std::vector<PipelineExecutable>& executables() const { return executables_; }
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
  std::vector<PipelineExecutable> executables_;
};

class BlendRunner final : public BoidsRunner {
 public:
  explicit BlendRunner(RunContext& c) : BoidsRunner(c) {
    Device& device = c.device;
    const VkFormatFeatureFlags needed = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT;
    if (!device.format_has(Image::kFormat, needed)) throw UnsupportedError("R32G32B32A32_SFLOAT cannot be blended into");
    c.compile(0);  // for the SPIR-V hash; the pipeline compiles them again (cached)
    c.compile(1);
    image_ = std::make_unique<Image>(device, 1, 1, 1, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    output = c.guarded(output_bytes, kVec4);
    blend_ = std::make_unique<BlendPipeline>(device, c.compiler, c.spec, c.input.handle());
    c.compiled.push_back(blend_->executables());
  }
  void record(VkCommandBuffer cmd) const override {
    blend_->draw(cmd, *image_, count_);
    copy_texel_to_buffer(cmd, *image_, 0, output->handle());
  }

 private:
  std::unique_ptr<Image> image_;
  std::unique_ptr<BlendPipeline> blend_;
};

class Blend final : public KernelMethod {
 public:
  std::unique_ptr<FamilyRunner> make_runner(RunContext& context) const override {
    return std::make_unique<BlendRunner>(context);
  }
  MethodCheck make_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, DerivedInput) const override {
    return boids_sums_check(spec, problem, shape, 1.0, true);
  }
};

}  // namespace

const KernelMethod& boids_blend_method() {
  static const Blend method;
  return method;
}

}  // namespace shaderwatch
