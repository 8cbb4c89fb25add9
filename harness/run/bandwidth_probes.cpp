#include "run/bandwidth_probes.h"

#include <algorithm>

#include "catalog.h"

namespace shaderwatch {
namespace {

const std::vector<uint32_t>& spirv(ShaderCompiler& compiler, const ShaderRef& shader) {
  return compiler.compile(shader.file, shader.defines);
}

}  // namespace

CopyProbe::CopyProbe(Device& device, ShaderCompiler& compiler, const Buffer& src, const Buffer& dst, bool write_only,
                     bool tiled)
    : pipeline_(device, spirv(compiler, copy_probe_shader(write_only, tiled)),
                {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, src.handle()}, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, dst.handle()}}) {
  const uint32_t count = static_cast<uint32_t>(src.size() / 16);
  push_.values[0] = count;
  if (tiled) {  // 16x16 invocations, one vec4 each
    push_.values[1] = std::min(count, kProbeImageWidth);
    groups_x_ = static_cast<uint32_t>(ceil_div(push_.values[1], 16));
    groups_y_ = static_cast<uint32_t>(ceil_div(ceil_div(count, push_.values[1]), 16));
  } else {
    groups_x_ = grid_stride_groups(device.info(), count, 256);
    push_.values[1] = groups_x_;
  }
}

Bandwidths measure_bandwidths(Device& device, ShaderCompiler& compiler, uint64_t bytes, const DispatchSeconds& seconds) {
  bytes &= ~uint64_t{15};
  Buffer src(device, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), dst(device, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  device.submit_and_wait([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, src.handle(), 0, VK_WHOLE_SIZE, 0x3F800000u); });
  auto fastest = [](const std::function<double(bool tiled)>& pattern) { return std::min(pattern(false), pattern(true)); };
  auto copy_seconds = [&](bool write_only) {
    return fastest([&](bool tiled) {
      const CopyProbe probe(device, compiler, src, dst, write_only, tiled);
      return seconds([&](VkCommandBuffer cmd) { probe.record(cmd); });
    });
  };
  Bandwidths b;
  b.bytes = bytes;
  b.copy_kernel = 2.0 * bytes / copy_seconds(false);
  b.copy_buffer = 2.0 * bytes / seconds([&](VkCommandBuffer cmd) {
    const VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, src.handle(), dst.handle(), 1, &region);
  });
  b.read_only = bytes / fastest([&](bool tiled) {
    const BufferReader reader(device, compiler, src, tiled);
    return seconds([&](VkCommandBuffer cmd) { reader.record(cmd); });
  });
  b.write = bytes / copy_seconds(true);
  return b;
}

}  // namespace shaderwatch
