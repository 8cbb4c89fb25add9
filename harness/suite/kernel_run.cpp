// One catalog kernel on one device: its setup from a shared input, poison, dispatch, readback and check (kernel_run.h).
#include "suite/kernel_run.h"

#include <algorithm>
#include <cstring>

#include "check/answer_check.h"
#include "families/kernel_family.h"
#include "run/dispatch_runner.h"
#include "run/family_runner.h"
#include "families/kernel_input.h"

namespace shaderwatch {

namespace {

// Pinned host memory the device copies a run's outputs into, in one submission: copying them through the staging
// buffer into a fresh vector took 11.8 s of the default suite's 118 s on an H200 (8K images of 530 MB, hot and
// cold), the device's own copy a few milliseconds each. --check reads it in place; the benchmark copies it out on
// every core (Readback::copy) and reuses it for the next readback.
class CopiedOutputs final : public ReadbackMemory {
 public:
  CopiedOutputs(Device& device, size_t bytes) : device_(device), buffer_(device, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true) {}
  unsigned char* data() override { return buffer_.mapped(); }
  size_t capacity() const override { return buffer_.size(); }
  const Buffer& buffer() const { return buffer_; }
  const Device& device() const { return device_; }

 private:
  const Device& device_;
  Buffer buffer_;
};

}  // namespace

struct KernelRun::Impl {
  Device& device;
  const KernelSpec& spec;
  const Problem& problem;
  std::string hash;
  std::shared_ptr<const std::vector<std::vector<PipelineExecutable>>> compiled;
  std::shared_ptr<const KernelInput> input;
  std::unique_ptr<FamilyRunner> runner;
  std::unique_ptr<AnswerCheck> answer;  // made last, when the run's shape is known

  Impl(Device& d, const KernelSpec& s, const Problem& p) : device(d), spec(s), problem(p) {}
  uint64_t groups() const { return answer ? answer->shape().groups() : uint64_t{runner->groups_x} * runner->groups_y; }
};

bool kernel_accepts(const KernelSpec& spec, const Problem& problem) {
  return spec.family == problem.family && !(spec.needs_nonnegative_input && problem.has_negative());
}

KernelRun::KernelRun(Device& device, ShaderCompiler& compiler, const KernelSpec& spec, const Problem& problem,
                     uint32_t subgroup_size, std::shared_ptr<const KernelInput> input)
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
  if (subgroup_size) {
    const auto sizes = info.requirable_subgroup_sizes(spec.group_x * spec.group_y);
    if (std::find(sizes.begin(), sizes.end(), subgroup_size) == sizes.end())
      throw UnsupportedError("subgroup size " + std::to_string(subgroup_size) + " cannot be required of a " +
                             std::to_string(spec.group_x * spec.group_y) + "-invocation workgroup on this device");
  }
  const KernelFamily& family = kernel_family(spec.family);
  const uint64_t items = problem.items();
  r.input = input ? std::move(input) : make_kernel_input(device, spec, problem);

  RunContext context(device, compiler, spec, problem, *r.input->buffer, r.input->derived, subgroup_size);
  r.runner = spec.plan ? make_dispatch_runner(context, *spec.plan) : family.method(spec.method).make_runner(context);
  r.hash = context.spirv_hash;
  r.compiled = std::make_shared<const std::vector<std::vector<PipelineExecutable>>>(std::move(context.compiled));
  if (r.runner->groups_x > info.max_workgroup_count_x) {
    throw UnsupportedError(std::to_string(r.runner->groups_x) + " workgroups in x exceed maxComputeWorkGroupCount " +
                           std::to_string(info.max_workgroup_count_x));
  }
  // The counter zeroed once: the kernel itself must leave it at zero for the next dispatch. The output and
  // intermediate buffers poisoned once here as well (record_poison does it again before each run), so a
  // guard zone holds the poison even for a caller that runs the kernel unpoisoned.
  device.submit_and_wait([&](VkCommandBuffer cmd) {
    if (r.runner->counter) vkCmdFillBuffer(cmd, r.runner->counter->handle(), 0, VK_WHOLE_SIZE, 0);
    record_poison(cmd);
  });
  const RunShape shape{r.runner->groups_x, r.runner->groups_y,
                       {subgroup_size ? subgroup_size : info.subgroup_size, items, r.groups()}};
  r.answer = make_answer_check(spec, problem, shape, r.input->derived);
}

KernelRun::~KernelRun() = default;

const std::string& KernelRun::spirv_hash() const { return impl_->hash; }
std::shared_ptr<const std::vector<std::vector<PipelineExecutable>>> KernelRun::compiled() const { return impl_->compiled; }
bool KernelRun::writes_image() const { return kernel_method(impl_->spec).writes_image(); }
std::vector<float> KernelRun::output_pixels() const {
  if (!writes_image()) throw std::logic_error(impl_->spec.name + " does not write an image");
  return impl_->runner->output->download_as<float>(impl_->problem.items() * 4);
}

uint64_t KernelRun::groups() const { return impl_->groups(); }

void KernelRun::record_poison(VkCommandBuffer cmd) const {
  const FamilyRunner& k = *impl_->runner;
  for (const auto* b : {k.output.get(), k.partials.get()}) {
    if (b) vkCmdFillBuffer(cmd, b->handle(), 0, VK_WHOLE_SIZE, kNaNBits);
  }
  full_barrier(cmd);
}

void KernelRun::record(VkCommandBuffer cmd) const { impl_->runner->record(cmd); }

void KernelRun::release_device() {
  impl_->runner.reset();  // its pipelines, images and outputs; the check keeps what it needs
  impl_->input.reset();
}

Readback KernelRun::read_outputs(Readback reuse) const {
  const FamilyRunner& k = *impl_->runner;
  // One copy into host memory: the output and its guard zone, then the intermediate buffer's guard zone, then
  // the counter.
  const VkDeviceSize output = k.output->size();
  const VkDeviceSize partials_guard_at = output;
  const VkDeviceSize counter_at = partials_guard_at + (k.partials ? kOutputGuardBytes : 0);
  const VkDeviceSize total = counter_at + (k.counter ? sizeof(uint32_t) : 0);
  auto memory = std::dynamic_pointer_cast<CopiedOutputs>(std::move(reuse.memory));
  if (!memory || memory->capacity() < total || &memory->device() != &impl_->device)
    memory = std::make_shared<CopiedOutputs>(impl_->device, total);
  const Buffer& host = memory->buffer();
  impl_->device.submit_and_wait([&](VkCommandBuffer cmd) {
    full_barrier(cmd);
    k.output->record_copy(cmd, host, 0, 0, output);
    if (k.partials) k.partials->record_copy(cmd, host, k.partials_bytes, partials_guard_at, kOutputGuardBytes);
    if (k.counter) k.counter->record_copy(cmd, host, 0, counter_at, sizeof(uint32_t));
    host_read_barrier(cmd);
  });
  Readback r;
  r.bytes = {memory->data(), output};
  r.output_bytes = k.output_bytes;
  if (k.partials) r.partials_guard.assign(memory->data() + partials_guard_at, memory->data() + counter_at);
  if (k.counter) {
    uint32_t value = 0;
    std::memcpy(&value, memory->data() + counter_at, sizeof value);
    r.counter = value;
  }
  r.memory = std::move(memory);
  return r;
}

CheckResult KernelRun::check(const Readback& got) const { return impl_->answer->check(got); }

CheckResult run_and_check(Device& device, ShaderCompiler& compiler, const KernelSpec& spec, const Problem& problem,
                      bool corrupt, unsigned repeat, uint32_t subgroup_size) {
  CheckResult o;
  try {
    KernelRun run(device, compiler, spec, problem, subgroup_size);
    Readback first;
    for (unsigned i = 0; i < std::max(repeat, 1u); ++i) {
      device.submit_and_wait([&](VkCommandBuffer cmd) {
        run.record_poison(cmd);
        run.record(cmd);
      });
      Readback got = run.read_outputs();
      if (corrupt) corrupt_readback(got);
      const CheckResult oi = run.check(got);
      if (i == 0) o = oi;
      const std::string which = "run " + std::to_string(i + 1) + " of " + std::to_string(repeat);
      if (oi.status != CheckStatus::Pass) {
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
        o.status = CheckStatus::Fail;
        o.message = text;
        o.first_failure = text;
        return o;
      }
    }
    if (repeat > 1) o.message = std::to_string(repeat) + " runs, bit-identical";
  } catch (const UnsupportedError& e) {
    o.status = CheckStatus::Unsupported;
    o.message = e.what();
  } catch (const std::exception& e) {
    o.status = CheckStatus::Error;
    o.message = std::string(e.what()) + " (kernel " + spec.name + ", device " + device.info().name + ")";
  }
  return o;
}

}  // namespace shaderwatch
