#pragma once
// A kernel's runner: it builds the kernel's pipelines and outputs on a device and records its passes. The one
// executor of dispatch plans (dispatch_runner.h) for most; a KernelMethod's own make_runner
// (families/kernel_method.h) for a method that is not plain compute dispatches.
// KernelRun does what every family shares: the input upload and its guard zone, poison, readback and the
// check (answer_check.h). What else a family is (its sizes, inputs, methods and --check cases), and what a
// new family or method takes, is in families/kernel_family.h.
#include <memory>
#include <string>
#include <vector>

#include "check/answer_check.h"
#include "catalog.h"
#include "inputs/inputs.h"
#include "vulkan/pipelines.h"
#include "vulkan/shader_compiler.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

inline constexpr VkDeviceSize kVec4 = 16;

// What a runner is built from; its helpers are the one way to make outputs and compile shaders.
class RunContext {
 public:
  RunContext(Device& device, ShaderCompiler& compiler, const KernelSpec& spec, const Problem& problem,
             const Buffer& input, const DerivedInput& derived, uint32_t subgroup_size)
      : device(device), compiler(compiler), spec(spec), problem(problem), input(input), derived(derived),
        subgroup_size(subgroup_size) {}
  Device& device;
  ShaderCompiler& compiler;
  const KernelSpec& spec;
  const Problem& problem;
  const Buffer& input;         // uploaded, with its NaN guard zone after it
  const DerivedInput& derived;  // the family's derive_input: the input as uploaded and its parameters
  uint32_t subgroup_size;      // required of every compute pass; 0: the device's choice
  std::string spirv_hash;      // of every shader compiled through compile()
  // What the driver compiled of each of the kernel's pipelines, in order: pipeline() adds the compute pipelines it
  // makes, a runner that makes another (boids' blend) adds it itself. Empty lists where the device does not say
  // (Device::captures_pipeline_statistics()).
  std::vector<std::vector<PipelineExecutable>> compiled;

  const std::vector<uint32_t>& compile(size_t shader);
  // The compute pipeline of the spec's shader `shader` (compiled through compile()), at subgroup_size.
  std::unique_ptr<ComputePipeline> pipeline(size_t shader, const std::vector<Resource>& resources,
                                            const std::vector<uint32_t>& specialization = {});
  std::unique_ptr<Buffer> buffer(VkDeviceSize bytes) const;
  // An output or intermediate buffer: `bytes` for the kernel (recorded in `size`), then the guard zone.
  std::unique_ptr<Buffer> guarded(VkDeviceSize& size, VkDeviceSize bytes) const;
  static Resource storage(const Buffer& b) { return Resource{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, b.handle()}; }
};

class FamilyRunner {
 public:
  virtual ~FamilyRunner() = default;
  virtual void record(VkCommandBuffer cmd) const = 0;  // every pass of the kernel, barriers between them

  // Set by the constructor: what KernelRun poisons, reads back and checks.
  std::unique_ptr<Buffer> output, partials, counter;  // partials and counter where the kernel has them
  VkDeviceSize output_bytes = 0, partials_bytes = 0;  // without their guard zones
  uint32_t groups_x = 1, groups_y = 1;                // workgroups of the main dispatch
  uint64_t problem_items = 0;
};

}  // namespace shaderwatch
