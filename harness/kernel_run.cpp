#include "kernel_run.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>

#include "luminance.h"
#include "boids.h"
#include "pipelines.h"
#include "postfx_check.h"
#include "summation.h"

namespace shaderwatch {

namespace {

constexpr uint32_t kNaNBits = 0x7FC00000u;  // poison and guard value: any read of it poisons the sum
constexpr uint32_t kTwoPassSlices = 64;     // boids_slices.comp SLICES in the catalog
constexpr VkDeviceSize kVec4 = 16;
// After the output and the intermediate buffer: poisoned with them, and still the poison after every
// run, or the kernel wrote past the end (an out-of-range write inside a buffer is no fault on a GPU).
constexpr VkDeviceSize kOutputGuardBytes = 256;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Workgroups {x, y} of blur pass `pass`: its shader writes the TILE_X x TILE_Y pixels its catalog defines say.
std::pair<uint32_t, uint32_t> blur_groups(const KernelSpec& spec, size_t pass, const Problem& problem) {
  auto tile = [&](const std::string& name) -> uint64_t {
    for (const auto& [key, value] : spec.shaders.at(pass).defines)
      if (key == name) return std::stoul(value);
    throw std::logic_error(spec.name + ": blur pass " + std::to_string(pass) + " lacks " + name);
  };
  return {static_cast<uint32_t>(ceil_div(problem.width, tile("TILE_X"))),
          static_cast<uint32_t>(ceil_div(problem.height, tile("TILE_Y")))};
}

float key_to_float(uint32_t key) {  // inverse of boids_minmax.comp's order_key
  const uint32_t u = (key & 0x80000000u) ? (key ^ 0x80000000u) : ~key;
  return std::bit_cast<float>(u);
}

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
  ~BlendPipeline() { vkDestroyPipeline(device_.handle(), pipeline_, nullptr); }

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

}  // namespace

struct KernelRun::Impl {
  Device& device;
  const KernelSpec& spec;
  const Problem& problem;
  ErrorContext error_context{};
  uint32_t groups_x = 1, groups_y = 1;
  PushConstants push;
  std::string hash;
  std::unique_ptr<Buffer> input, output, partials, counter;
  VkDeviceSize output_bytes = 0, partials_bytes = 0;  // without their guard zones
  std::unique_ptr<Image> image;
  std::vector<std::unique_ptr<ComputePipeline>> passes;
  std::unique_ptr<BlendPipeline> blend;
  // The reference depends only on the input and the partition: computed at the first check, reused by
  // later checks of the same run (the benchmark checks hot and cold runs and every repetition).
  mutable std::vector<reference::LuminanceGroup> expected_groups;
  // Post-processing: the input as uploaded (in the kernel's pixel space), its parameters.
  std::vector<float> pixels;
  reference::PostfxParams postfx;
  std::unique_ptr<Buffer> weights;
  mutable ExpectedImage expected_image;  // computed at the first check, as expected_groups
  mutable std::mutex check_mutex;         // checks of one run (hot, cold) may run on two threads

  Impl(Device& d, const KernelSpec& s, const Problem& p) : device(d), spec(s), problem(p) {}
  uint64_t groups() const { return uint64_t{groups_x} * groups_y; }
  double bound(double roundings, double scale) const { return 2.0 * reference::error_gamma(roundings) * scale; }
  // The probabilistic bound of the same sum (reference::probable_error_gamma), no looser than bound().
  double probable_bound(double roundings, double scale) const {
    return std::min(bound(roundings, scale), 2.0 * reference::probable_error_gamma(roundings) * scale);
  }
  Outcome check_luminance(const Readback& output) const;
  Outcome check_boids(const Readback& output) const;
};

bool kernel_accepts(const KernelSpec& spec, const Problem& problem) {
  return spec.family == problem.family && !(spec.needs_nonnegative_input && problem.has_negative());
}

KernelRun::KernelRun(Device& device, ShaderCompiler& compiler, const KernelSpec& spec, const Problem& problem)
    : impl_(std::make_unique<Impl>(device, spec, problem)) {
  Impl& r = *impl_;
  const DeviceInfo& info = device.info();
  if (!kernel_accepts(spec, problem)) {
    throw std::invalid_argument("kernel " + spec.name + " does not take " + input_kind_name(problem.kind) + " input");
  }
  if (spec.subgroup_ops && !info.has_subgroup_ops(spec.subgroup_ops)) {
    throw UnsupportedError("compute shaders on this device lack the subgroup operations the kernel needs");
  }
  if (spec.group_x * spec.group_y > info.max_workgroup_invocations) {
    throw UnsupportedError("workgroup of " + std::to_string(spec.group_x * spec.group_y) + " invocations exceeds " +
                           std::to_string(info.max_workgroup_invocations));
  }
  const uint64_t items = problem.items();
  // The input and a guard zone of NaN after it: a kernel that reads past the end sums a NaN and fails.
  const uint64_t guard_bytes = problem.family != Family::Boids
                                   ? kVec4 * std::max<uint64_t>(4096, uint64_t{problem.width} * 128)
                                   : kVec4 * 4096;
  const uint64_t input_bytes = items * kVec4;
  if (input_bytes + guard_bytes > info.max_storage_buffer_range) {
    throw UnsupportedError("input of " + std::to_string(input_bytes) + " bytes (+ guard) exceeds maxStorageBufferRange " +
                           std::to_string(info.max_storage_buffer_range));
  }
  if (problem.family == Family::Postfx) {
    r.pixels = postfx_input(spec, problem);
    r.postfx = postfx_params(problem);
  }
  r.input = std::make_unique<Buffer>(device, input_bytes + guard_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  r.input->upload(problem.family == Family::Postfx ? r.pixels.data() : problem.data.data(), input_bytes);
  device.submit_and_wait(
      [&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, r.input->handle(), input_bytes, guard_bytes, kNaNBits); });

  const auto image_bytes = [&] { return uint64_t{problem.width} * problem.height * kVec4; };
  auto compile = [&](size_t i) -> const std::vector<uint32_t>& {
    const auto& spirv = compiler.compile(spec.shaders.at(i).file, spec.shaders.at(i).defines);
    r.hash += ShaderCompiler::hash(spirv);
    return spirv;
  };
  auto storage = [](const std::unique_ptr<Buffer>& b) { return Resource{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, b->handle()}; };
  auto make_output = [&](VkDeviceSize bytes) {
    return std::make_unique<Buffer>(device, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  };
  // The output or the intermediate buffer: `bytes` for the kernel, then the guard zone.
  auto guarded = [&](VkDeviceSize& size, VkDeviceSize bytes) {
    size = bytes;
    return make_output(bytes + kOutputGuardBytes);
  };
  const uint32_t count32 = static_cast<uint32_t>(items);

  switch (spec.method) {
    case Method::LumTiles:
    case Method::LumSinglePass:
    case Method::LumStats:
    case Method::LumGridStride: {
      if (spec.method == Method::LumGridStride) {
        r.groups_x = grid_stride_groups(info, items, spec.group_x);
      } else {
        r.groups_x = static_cast<uint32_t>(ceil_div(problem.width, spec.tile_x));
        r.groups_y = static_cast<uint32_t>(ceil_div(problem.height, spec.tile_y));
      }
      r.push.values[0] = problem.width;
      r.push.values[1] = problem.height;
      r.push.values[2] = count32;
      r.push.values[3] = static_cast<uint32_t>(r.groups());
      const bool stats = spec.method == Method::LumStats;
      const bool single = spec.method == Method::LumSinglePass;
      // Single pass: the tile sums, the total, and for the log-average Lavg and the exposure.
      r.output = guarded(r.output_bytes, (r.groups() + (single ? (spec.log_average ? 3 : 1) : 0)) * (stats ? kVec4 : 4));
      std::vector<Resource> resources{storage(r.input), storage(r.output)};
      if (single) {
        r.counter = make_output(4);
        resources.push_back(storage(r.counter));
      }
      r.passes.push_back(std::make_unique<ComputePipeline>(device, compile(0), resources));
      break;
    }
    case Method::BoidsSerial:
    case Method::BoidsGroupshared:
    case Method::BoidsMinMaxSubgroup:
      r.push.values[0] = count32;
      r.output = guarded(r.output_bytes, 2 * kVec4);
      r.passes.push_back(std::make_unique<ComputePipeline>(device, compile(0), std::vector{storage(r.input), storage(r.output)}));
      break;
    case Method::BoidsMinMaxAtomic:
      r.push.values[0] = count32;
      r.groups_x = static_cast<uint32_t>(ceil_div(items, spec.group_x));
      r.output = guarded(r.output_bytes, 6 * 4);
      r.passes.push_back(std::make_unique<ComputePipeline>(device, compile(0), std::vector{storage(r.input), storage(r.output)}));
      break;
    case Method::BoidsTwoPass:
      r.push.values[0] = count32;
      r.partials = guarded(r.partials_bytes, kTwoPassSlices * kVec4);
      r.output = guarded(r.output_bytes, kVec4);
      r.passes.push_back(std::make_unique<ComputePipeline>(device, compile(0), std::vector{storage(r.input), storage(r.partials)}));
      r.passes.push_back(std::make_unique<ComputePipeline>(device, compile(1), std::vector{storage(r.partials), storage(r.output)}));
      break;
    case Method::BoidsBlend: {
      const VkFormatFeatureFlags needed = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT;
      if (!device.format_has(Image::kFormat, needed)) throw UnsupportedError("R32G32B32A32_SFLOAT cannot be blended into");
      compile(0);
      compile(1);
      r.image = std::make_unique<Image>(device, 1, 1, 1,
                                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
      r.output = guarded(r.output_bytes, kVec4);
      r.blend = std::make_unique<BlendPipeline>(device, compiler, spec, r.input->handle());
      break;
    }
    case Method::BoidsMipChain: {
      const VkFormatFeatureFlags needed = VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | VK_FORMAT_FEATURE_BLIT_SRC_BIT |
                                          VK_FORMAT_FEATURE_BLIT_DST_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
      if (!device.format_has(Image::kFormat, needed)) {
        throw UnsupportedError("R32G32B32A32_SFLOAT lacks storage, blit or linear filtering");
      }
      const uint32_t side = mip_chain_side(items);
      r.image = std::make_unique<Image>(device, side, side, tree_levels(side) + 1,
                                        VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                            VK_IMAGE_USAGE_TRANSFER_DST_BIT);
      r.push.values[0] = count32;
      r.groups_x = static_cast<uint32_t>(ceil_div(items, spec.group_x));
      r.output = guarded(r.output_bytes, kVec4);
      r.passes.push_back(std::make_unique<ComputePipeline>(
          device, compile(0),
          std::vector{storage(r.input), Resource{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_NULL_HANDLE, r.image->level0_view()}}));
      break;
    }
    case Method::PixelMap:
    case Method::DofTiles:
    case Method::DofComposite: {
      r.groups_x = static_cast<uint32_t>(ceil_div(problem.width, 16));
      r.groups_y = static_cast<uint32_t>(ceil_div(problem.height, 16));
      r.push.values[0] = problem.width;
      r.push.values[1] = problem.height;
      const reference::PostfxParams& p = r.postfx;
      const reference::LensParams lens = postfx_lens();
      const float floats[] = {p.exposure, p.white_point, p.lavg, p.key, p.threshold, p.offset, p.lottes_b, p.lottes_c,
                              lens.focal_length, lens.f_stop, lens.focus_distance,
                              static_cast<float>(problem.width / lens.sensor_width), p.drago_lmax, p.drago_scale};
      for (size_t i = 0; i < std::size(floats); ++i) r.push.set_float(4 + i, floats[i]);
      if (spec.method == Method::DofComposite) {  // the tiles, then the composite reading them
        r.partials = guarded(r.partials_bytes, r.groups() * kVec4);
        r.output = guarded(r.output_bytes, image_bytes());
        r.passes.push_back(std::make_unique<ComputePipeline>(device, compile(0), std::vector{storage(r.input), storage(r.partials)}));
        r.passes.push_back(std::make_unique<ComputePipeline>(
            device, compile(1), std::vector{storage(r.input), storage(r.output), storage(r.partials)}));
        break;
      }
      r.output = guarded(r.output_bytes, spec.method == Method::PixelMap ? image_bytes() : r.groups() * kVec4);
      r.passes.push_back(std::make_unique<ComputePipeline>(device, compile(0), std::vector{storage(r.input), storage(r.output)},
                                                           spec.specialization));
      break;
    }
    case Method::Blur: {
      r.push.values[0] = problem.width;
      r.push.values[1] = problem.height;
      const auto w = blur_weights(spec.blur_radius);
      r.weights = make_output(w.size() * sizeof(float));
      r.weights->upload(w.data(), w.size() * sizeof(float));
      r.partials = guarded(r.partials_bytes, image_bytes());  // the x pass's output
      r.output = guarded(r.output_bytes, image_bytes());
      r.passes.push_back(std::make_unique<ComputePipeline>(
          device, compile(0), std::vector{storage(r.input), storage(r.partials), storage(r.weights)}));
      r.passes.push_back(std::make_unique<ComputePipeline>(
          device, compile(1), std::vector{storage(r.partials), storage(r.output), storage(r.weights)}));
      const auto [gx, gy] = blur_groups(spec, 0, problem);
      r.groups_x = gx;
      r.groups_y = gy;
      break;
    }
  }
  if (r.groups_x > info.max_workgroup_count_x) {
    throw UnsupportedError(std::to_string(r.groups_x) + " workgroups in x exceed maxComputeWorkGroupCount " +
                           std::to_string(info.max_workgroup_count_x));
  }
  // The counter zeroed once: the kernel itself must leave it at zero for the next dispatch. The output and
  // intermediate buffers poisoned once here as well (record_poison does it again before each run), so a
  // guard zone holds the poison even for a caller that runs the kernel unpoisoned.
  device.submit_and_wait([&](VkCommandBuffer cmd) {
    if (r.counter) vkCmdFillBuffer(cmd, r.counter->handle(), 0, VK_WHOLE_SIZE, 0);
    record_poison(cmd);
  });
  r.error_context = {info.subgroup_size, items, r.groups()};
}

KernelRun::~KernelRun() = default;

const std::string& KernelRun::spirv_hash() const { return impl_->hash; }
std::vector<float> KernelRun::output_pixels() const {
  if (impl_->spec.method != Method::PixelMap && impl_->spec.method != Method::Blur &&
      impl_->spec.method != Method::DofComposite) {
    throw std::logic_error(impl_->spec.name + " does not write an image");
  }
  return impl_->output->download_as<float>(impl_->problem.items() * 4);
}

uint64_t KernelRun::bytes_moved() const {
  const uint64_t input = impl_->problem.items() * kVec4;
  switch (impl_->spec.method) {
    case Method::PixelMap: return 2 * input;  // one read and one write per pixel
    case Method::Blur: return 4 * input;      // two passes, each reading and writing the image once
    case Method::DofComposite: return 3 * input;  // the tile pass reads the image; the composite reads and writes it
    default: return input;                    // reductions: the input; their outputs are tiny
  }
}
uint64_t KernelRun::groups() const { return impl_->groups(); }

void KernelRun::record_poison(VkCommandBuffer cmd) const {
  const Impl& r = *impl_;
  for (const auto* b : {r.output.get(), r.partials.get()}) {
    if (b) vkCmdFillBuffer(cmd, b->handle(), 0, VK_WHOLE_SIZE, kNaNBits);
  }
  full_barrier(cmd);
}

void KernelRun::record(VkCommandBuffer cmd) const {
  const Impl& r = *impl_;
  switch (r.spec.method) {
    case Method::BoidsTwoPass: {
      r.passes[0]->dispatch(cmd, r.push, 1);
      full_barrier(cmd);
      PushConstants second;
      second.values[0] = kTwoPassSlices;
      r.passes[1]->dispatch(cmd, second, 1);
      break;
    }
    case Method::BoidsMinMaxAtomic: {
      // Identities: min starts at the largest key, max at the smallest; both decode to NaN if untouched.
      vkCmdFillBuffer(cmd, r.output->handle(), 0, 12, 0xFFFFFFFFu);
      vkCmdFillBuffer(cmd, r.output->handle(), 12, 12, 0u);
      full_barrier(cmd);
      r.passes[0]->dispatch(cmd, r.push, r.groups_x);
      break;
    }
    case Method::BoidsBlend:
      r.blend->draw(cmd, *r.image, static_cast<uint32_t>(r.problem.count));
      copy_texel_to_buffer(cmd, *r.image, 0, r.output->handle());
      break;
    case Method::BoidsMipChain: {
      const Image& img = *r.image;
      const uint32_t levels = img.levels();
      image_barrier(cmd, img.handle(), 0, levels, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      const VkClearColorValue zero{};
      const VkImageSubresourceRange level0{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
      vkCmdClearColorImage(cmd, img.handle(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &level0);
      image_barrier(cmd, img.handle(), 0, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
      r.passes[0]->dispatch(cmd, r.push, r.groups_x);
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
        image_barrier(cmd, img.handle(), level, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      }
      copy_texel_to_buffer(cmd, img, levels - 1, r.output->handle());
      break;
    }
    case Method::Blur: {
      r.passes[0]->dispatch(cmd, r.push, r.groups_x, r.groups_y);
      full_barrier(cmd);
      const auto [gx, gy] = blur_groups(r.spec, 1, r.problem);
      r.passes[1]->dispatch(cmd, r.push, gx, gy);
      break;
    }
    case Method::DofComposite:
      r.passes[0]->dispatch(cmd, r.push, r.groups_x, r.groups_y);
      full_barrier(cmd);
      r.passes[1]->dispatch(cmd, r.push, r.groups_x, r.groups_y);
      break;
    default:
      r.passes[0]->dispatch(cmd, r.push, r.groups_x, r.groups_y);
      break;
  }
}

void KernelRun::release_device() {
  Impl& r = *impl_;
  r.passes.clear();
  r.blend.reset();
  r.image.reset();
  r.input.reset();
  r.output.reset();
  r.partials.reset();
  r.counter.reset();
  r.weights.reset();
}

Readback KernelRun::read_outputs(Readback reuse) const {
  const Impl& k = *impl_;
  Readback r = std::move(reuse);
  r.bytes.resize(k.output->size());
  r.output_bytes = k.output_bytes;
  k.output->download(r.bytes.data(), r.bytes.size());
  r.partials_guard.clear();
  if (k.partials) {
    r.partials_guard.resize(kOutputGuardBytes);
    k.partials->download(r.partials_guard.data(), kOutputGuardBytes, k.partials_bytes);
  }
  r.counter.reset();
  if (k.counter) {
    uint32_t value = 0;
    k.counter->download(&value, sizeof value);
    r.counter = value;
  }
  return r;
}

namespace {

// The first guard word that is no longer the poison, as text; "" when the zone is intact.
std::string touched_guard(const unsigned char* zone, size_t bytes, const char* buffer) {
  for (size_t i = 0; i + 4 <= bytes; i += 4) {
    uint32_t word = 0;
    std::memcpy(&word, zone + i, 4);
    if (word != kNaNBits) {
      char text[160];
      std::snprintf(text, sizeof text, "wrote past the end of its %s: guard byte %zu after the end holds 0x%08x", buffer,
                    i, word);
      return text;
    }
  }
  return "";
}

// What the kernel must leave as it found it, checked after every run beside its answer: the guard zones
// (nothing written past the end of its output or intermediate buffer) and its atomic counter (back at
// zero for the next dispatch: the harness zeroes it only once, at setup).
void check_kernel_state(const Readback& got, Outcome& o) {
  std::string problem;
  if (got.bytes.size() >= got.output_bytes + kOutputGuardBytes)
    problem = touched_guard(got.bytes.data() + got.output_bytes, kOutputGuardBytes, "output");
  if (problem.empty() && !got.partials_guard.empty())
    problem = touched_guard(got.partials_guard.data(), got.partials_guard.size(), "intermediate buffer");
  if (problem.empty() && got.counter && *got.counter != 0)
    problem = "left its atomic counter at " + std::to_string(*got.counter) +
              " after the run (it must reset it to 0 for the next dispatch)";
  if (problem.empty() || (o.status != Status::Pass && !is_wrong_answer(o.status))) return;
  if (o.status != Status::Fail) {
    o.status = Status::Fail;
    o.message = problem;
    o.first_failure = problem;
  } else {
    o.message += "; " + problem;
  }
}

}  // namespace

Outcome KernelRun::check(const Readback& got) const {
  Outcome o = check_answer(got);
  check_kernel_state(got, o);
  return o;
}

Outcome KernelRun::check_answer(const Readback& got) const {
  const Impl& r = *impl_;
  const std::lock_guard lock(r.check_mutex);
  const uint32_t w = r.problem.width, h = r.problem.height;
  switch (r.spec.family) {
    case Family::Luminance: return r.check_luminance(got);
    case Family::Boids: return r.check_boids(got);
    case Family::Postfx: break;
  }
  if (r.spec.method == Method::DofTiles) {
    return check_dof_tiles(w, h, r.pixels, r.groups_x, r.groups_y, got.as<float>(r.groups() * 4));
  }
  if (r.expected_image.empty()) {
    r.expected_image = r.spec.method == Method::Blur           ? expected_blur(w, h, r.spec.blur_radius, r.pixels)
                       : r.spec.method == Method::DofComposite ? expected_dof_composite(w, h, r.spec.dof_max_radius, r.pixels)
                                                               : expected_pixel_map(r.spec, w, h, r.pixels, r.postfx);
  }
  return compare_image(r.expected_image, got.as<float>(r.problem.items() * 4));
}

Outcome KernelRun::Impl::check_luminance(const Readback& output) const {
  const bool stats = spec.method == Method::LumStats;
  const bool single = spec.method == Method::LumSinglePass;
  const uint64_t g = groups();
  // Which output element each pixel belongs to, as the shader assigns it.
  reference::PixelToGroup assign;
  if (spec.method == Method::LumGridStride) {
    const uint64_t width = problem.width, group = spec.group_x;
    assign = [=](uint32_t x, uint32_t y) { return static_cast<uint32_t>(((uint64_t{y} * width + x) / group) % g); };
  } else {
    const uint32_t tx = spec.tile_x, ty = spec.tile_y, gx = groups_x;
    assign = [=](uint32_t x, uint32_t y) { return (y / ty) * gx + x / tx; };
  }
  if (expected_groups.empty()) {
    expected_groups = reference::reduce_luminance(problem.data, problem.width, problem.height, static_cast<uint32_t>(g), assign);
  }
  const auto& expected = expected_groups;
  const double h = spec.roundings(error_context);
  ElementChecker checker;
  reference::NeumaierSum gpu_total;
  auto element_name = [&](uint64_t i) {
    std::ostringstream s;
    s << "element " << i;
    if (spec.method != Method::LumGridStride) s << " (tile " << i % groups_x << "," << i / groups_x << ")";
    return s.str();
  };
  if (stats) {
    const auto got = output.as<float>(g * 4);
    const double u = reference::kFloatUnitRoundoff;
    for (uint64_t i = 0; i < g; ++i) {
      const auto& e = expected[i];
      const float* v = &got[i * 4];
      checker.check(element_name(i) + " sum", e.sum, v[0], bound(h, e.abs_sum), probable_bound(h, e.abs_sum));
      // ln: 3 ulp outside [0.5, 2], 2^-21 absolute inside; plus the rounding of delta + L (u) and the error
      // of L itself (gamma_3 relative, L >= 0) passed through d ln(x) = dx / x <= relative error; then the sum.
      const double log_bound = 2.0 * (3 * u * e.log_abs_sum + e.pixels * (std::ldexp(1.0, -21) + reference::error_gamma(4)) +
                                       reference::error_gamma(h) * e.log_abs_sum);
      checker.check(element_name(i) + " log-sum", e.log_sum, v[1], log_bound);
      // min/max select a value exactly, but the value is a float dot product: within gamma_3 of its magnitude.
      const double minmax_bound = 2.0 * reference::error_gamma(3) * e.max_magnitude;
      checker.check(element_name(i) + " min", e.min, v[2], minmax_bound);
      checker.check(element_name(i) + " max", e.max, v[3], minmax_bound);
      gpu_total.add(v[0]);
    }
  } else if (spec.log_average) {
    // Per tile and in total: ln(delta + L) bounded as for the stats kernel; then Lavg = exp(total / N) and
    // the exposure 0.18 / Lavg, their bounds carried through exp and the division (reference/tracked.h).
    const auto got = output.as<float>(g + 3);
    const double u = reference::kFloatUnitRoundoff;
    auto log_bound = [&](const reference::LuminanceGroup& e, double roundings) {
      return 2.0 * (3 * u * e.log_abs_sum + e.pixels * (std::ldexp(1.0, -21) + reference::error_gamma(4)) +
                    reference::error_gamma(roundings) * e.log_abs_sum);
    };
    reference::NeumaierSum gpu_log_total;
    for (uint64_t i = 0; i < g; ++i) {
      checker.check(element_name(i) + " log-sum", expected[i].log_sum, got[i], log_bound(expected[i], h));
      gpu_log_total.add(got[i]);
    }
    const auto total = reference::merge(expected);
    const double total_bound = log_bound(total, spec.total_roundings(error_context));
    checker.check("log-sum total (element " + std::to_string(g) + ")", total.log_sum, got[g], total_bound);
    using reference::Tracked;
    // The shader divides its float total by float(N) (exact below 2^24 pixels, else one more rounding).
    const Tracked mean = Tracked::exact(total.log_sum, total_bound / 2) / Tracked(static_cast<double>(total.pixels));
    const Tracked lavg = exp(mean);
    const Tracked exposure = Tracked(0.18) / lavg;
    checker.check("log-average luminance", lavg.value, got[g + 1], 2 * lavg.error);
    checker.check("exposure 0.18 / Lavg", exposure.value, got[g + 2], 2 * exposure.error);
    Outcome o = checker.outcome();
    o.result = got[g + 1];
    return o;
  } else {
    const auto got = output.as<float>(g + (single ? 1 : 0));
    for (uint64_t i = 0; i < g; ++i) {
      checker.check(element_name(i), expected[i].sum, got[i], bound(h, expected[i].abs_sum),
                    probable_bound(h, expected[i].abs_sum));
      gpu_total.add(got[i]);
    }
    if (single) {
      const auto total = reference::merge(expected);
      const double total_h = spec.total_roundings(error_context);
      checker.check("total (element " + std::to_string(g) + ")", total.sum, got[g], bound(total_h, total.abs_sum),
                    probable_bound(total_h, total.abs_sum));
    }
  }
  const auto total = reference::merge(expected);
  // The harness's own total of the partials is in double: its error is the partials' errors, already bounded.
  checker.check("average of the image", total.sum / total.pixels, gpu_total.value() / total.pixels,
                bound(h, total.abs_sum) / total.pixels);
  Outcome o = checker.outcome();
  o.result = gpu_total.value() / static_cast<double>(total.pixels);
  return o;
}

Outcome KernelRun::Impl::check_boids(const Readback& output) const {
  const auto ref = reference::boids_stats(problem.data, problem.count);
  ElementChecker checker;
  static const char* kAxis[3] = {"x", "y", "z"};
  Outcome o;
  if (spec.method == Method::BoidsMinMaxAtomic) {
    const auto keys = output.as<uint32_t>(6);
    for (int c = 0; c < 3; ++c) {
      checker.check(std::string("min ") + kAxis[c], ref.min[c], key_to_float(keys[c]), 0);
      checker.check(std::string("max ") + kAxis[c], ref.max[c], key_to_float(keys[3 + c]), 0);
    }
    o = checker.outcome();
    o.result = key_to_float(keys[0]);
    return o;
  }
  const auto got = output.as<float>(spec.method == Method::BoidsMinMaxSubgroup ? 8 : 4);
  if (spec.method == Method::BoidsMinMaxSubgroup) {
    for (int c = 0; c < 3; ++c) {
      checker.check(std::string("min ") + kAxis[c], ref.min[c], got[c], 0);
      checker.check(std::string("max ") + kAxis[c], ref.max[c], got[4 + c], 0);
    }
    o = checker.outcome();
    o.result = got[0];
    return o;
  }
  // Sums. The mip chain holds the average over side^2 texels (w: the fraction of texels with a boid);
  // scaling by side^2, a power of two, is exact.
  double scale = 1.0;
  if (spec.method == Method::BoidsMipChain) {
    const double side = mip_chain_side(problem.count);
    scale = side * side;
  }
  const double h = spec.roundings(error_context);
  for (int c = 0; c < 3; ++c) {
    checker.check(std::string("sum ") + kAxis[c], ref.sum[c], got[c] * scale, bound(h, ref.abs_sum[c]),
                  probable_bound(h, ref.abs_sum[c]));
  }
  // Blending and the mip chain also count the points (w = 1 each): exact for N < 2^24.
  if (spec.method == Method::BoidsBlend || spec.method == Method::BoidsMipChain) {
    checker.check("points counted (w)", static_cast<double>(problem.count), got[3] * scale, 0);
  }
  o = checker.outcome();
  o.result = got[0] * scale / static_cast<double>(problem.count);
  return o;
}

void corrupt_readback(Readback& got) {
  // 1e30f in every 4-byte word: far outside every bound, and no count or index a check expects.
  constexpr uint32_t kWrong = 0x7149F2CAu;
  for (size_t i = 0; i + 4 <= std::min(got.output_bytes, got.bytes.size()); i += 4) std::memcpy(got.bytes.data() + i, &kWrong, 4);
}

std::optional<size_t> first_difference(const Readback& a, const Readback& b) {
  const size_t n = std::min(a.bytes.size(), b.bytes.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.bytes[i] != b.bytes[i]) return i;
  }
  if (a.bytes.size() != b.bytes.size()) return n;
  return std::nullopt;
}

Outcome run_and_check(Device& device, ShaderCompiler& compiler, const KernelSpec& spec, const Problem& problem,
                      bool corrupt, unsigned repeat) {
  Outcome o;
  try {
    KernelRun run(device, compiler, spec, problem);
    Readback first;
    for (unsigned i = 0; i < std::max(repeat, 1u); ++i) {
      device.submit_and_wait([&](VkCommandBuffer cmd) {
        run.record_poison(cmd);
        run.record(cmd);
      });
      Readback got = run.read_outputs();
      if (corrupt) corrupt_readback(got);
      const Outcome oi = run.check(got);
      if (i == 0) o = oi;
      const std::string which = "run " + std::to_string(i + 1) + " of " + std::to_string(repeat);
      if (oi.status != Status::Pass) {
        o = oi;
        if (repeat > 1) o.message = which + ": " + o.message;
        return o;
      }
      if (i == 0) {
        first = std::move(got);
        continue;
      }
      // Nothing in the catalog adds floats atomically: the same input must give the same bits every time.
      if (const auto at = first_difference(first, got)) {
        char text[200];
        std::snprintf(text, sizeof text, "%s gave other bits than run 1 (output byte %zu: 0x%02x, then 0x%02x): a race or "
                      "undefined behaviour, since the kernel's order is fixed", which.c_str(), *at,
                      *at < first.bytes.size() ? first.bytes[*at] : 0, *at < got.bytes.size() ? got.bytes[*at] : 0);
        o.status = Status::Fail;
        o.message = text;
        o.first_failure = text;
        return o;
      }
    }
    if (repeat > 1) o.message = std::to_string(repeat) + " runs, bit-identical";
  } catch (const UnsupportedError& e) {
    o.status = Status::Unsupported;
    o.message = e.what();
  } catch (const std::exception& e) {
    o.status = Status::Error;
    o.message = std::string(e.what()) + " (kernel " + spec.name + ", device " + device.info().name + ")";
  }
  return o;
}

}  // namespace shaderwatch
