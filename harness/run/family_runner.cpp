#include "run/family_runner.h"

#include "check/readback.h"

namespace shaderwatch {

const std::vector<uint32_t>& RunContext::compile(size_t shader) {
  const auto& ref = spec.shaders.at(shader);
  const auto& spirv = compiler.compile(ref);
  spirv_hash += ShaderCompiler::hash(spirv);
  return spirv;
}

std::unique_ptr<ComputePipeline> RunContext::pipeline(size_t shader, const std::vector<Resource>& resources,
                                                      const std::vector<uint32_t>& specialization) {
  auto made = std::make_unique<ComputePipeline>(device, compile(shader), resources, specialization, subgroup_size);
  compiled.push_back(made->executables());
  return made;
}

std::unique_ptr<Buffer> RunContext::buffer(VkDeviceSize bytes) const {
  return std::make_unique<Buffer>(device, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
}

std::unique_ptr<Buffer> RunContext::guarded(VkDeviceSize& size, VkDeviceSize bytes) const {
  size = bytes;
  return buffer(bytes + kOutputGuardBytes);
}

}  // namespace shaderwatch
