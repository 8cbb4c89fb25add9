#pragma once
// One catalog kernel set up on one device for one input: buffers, pipelines and dispatch shape. The
// correctness check and the benchmark both drive it: record() is the kernel's whole work and nothing
// else, record_poison() fills the outputs with NaN first, check() reads them back and compares with the
// reference.
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalog.h"
#include "check/check.h"
#include "inputs/inputs.h"
#include "vulkan/pipeline_statistics.h"
#include "check/readback.h"
#include "vulkan/shader_compiler.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

struct KernelInput;

class KernelRun {
 public:
  // Throws UnsupportedError when the device lacks what the kernel needs, VulkanError on a failed call.
  // subgroup_size: required of every compute pass (one of DeviceInfo::requirable_subgroup_sizes), 0 for the
  // device's choice; the check's bounds use it.
  // input: what make_kernel_input made of this problem for this kernel on this device (shared with other kernels
  // that read the same), or nullptr to make the run's own.
  KernelRun(Device& device, ShaderCompiler& compiler, const KernelSpec& spec, const Problem& problem,
            uint32_t subgroup_size = 0, std::shared_ptr<const KernelInput> input = nullptr);
  ~KernelRun();
  KernelRun(const KernelRun&) = delete;
  KernelRun& operator=(const KernelRun&) = delete;

  void record_poison(VkCommandBuffer cmd) const;  // NaN into every output element
  void record(VkCommandBuffer cmd) const;         // every pass of the kernel, barriers between them
  CheckResult check() const { return check(read_outputs()); }
  // The whole output buffer, after the last recorded run, copied by the device into host memory: `reuse`'s (a
  // finished readback's, when it is large enough: allocating and pinning 530 MB costs more than the copy).
  Readback read_outputs(Readback reuse = {}) const;
  // Compares every element with the reference and checks the kernel's state (AnswerCheck: computed at the
  // first check, then reused). CPU only: safe on another thread while the device runs other work, and from
  // several threads at once.
  CheckResult check(const Readback& got) const;
  // Frees every Vulkan object of the run (on the thread that drives the device, with the device idle);
  // afterwards only check() may be called. The benchmark frees runs in its own order this way rather
  // than whenever a worker's check ends: device memory is then laid out the same in every process.
  void release_device();

  // Whether its output is an image the size of the input (its method's), and that image read back (for
  // chaining kernels in tests and images).
  bool writes_image() const;
  std::vector<float> output_pixels() const;

  const std::string& spirv_hash() const;   // of all its shaders, combined
  // What the driver compiled of each of its pipelines (RunContext::compiled).
  std::shared_ptr<const std::vector<std::vector<PipelineExecutable>>> compiled() const;
  uint64_t groups() const;                 // workgroups of the main dispatch

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Poison, run, check (after corrupting the readback, with `corrupt`), `repeat` times on one setup: every
// run must pass, and every run must give the bits of the first (--check --repeat: races show as runs
// that differ). The correctness suite's unit of work. Never throws for kernel or device problems: they
// come back as Error or Unsupported outcomes naming the kernel and device.
CheckResult run_and_check(Device& device, ShaderCompiler& compiler, const KernelSpec& spec, const Problem& problem,
                      bool corrupt = false, unsigned repeat = 1, uint32_t subgroup_size = 0);

// Whether the kernel applies to the input (ln(delta + L) needs L >= 0).
bool kernel_accepts(const KernelSpec& spec, const Problem& problem);

}  // namespace shaderwatch
