// Issue 31: sampling batches are submitted before the previous one is waited for, so the GPU does not idle between
// them. On lavapipe: submissions run in the order made, one abandoned is waited for before its memory can go, and
// the two batches in flight keep their timestamps apart.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "families/kernel_family.h"
#include "run/gpu_timer.h"
#include "run/kernel_run.h"

using namespace shaderwatch;

namespace {

struct Lavapipe {
  std::unique_ptr<Instance> instance = std::make_unique<Instance>(/*validation=*/true);
  std::unique_ptr<Device> device = std::make_unique<Device>(*instance, instance->select(""));
  ShaderCompiler compiler;
};

Lavapipe& lavapipe() {
  static Lavapipe v;
  return v;
}

uint32_t word_at(const Buffer& buffer, VkDeviceSize offset) {
  uint32_t word = 0;
  std::memcpy(&word, buffer.mapped() + offset, sizeof word);
  return word;
}

}  // namespace

TEST(Submission, RunInTheOrderMadeAndOneNeverWaitedForIsWaitedForWhenDestroyed) {
  Lavapipe& v = lavapipe();
  constexpr VkDeviceSize kBytes = VkDeviceSize{64} << 20;  // large enough that lavapipe's fill takes a while
  Buffer a(*v.device, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, /*host_visible=*/true);
  Buffer b(*v.device, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, /*host_visible=*/true);
  Submission fill = v.device->submit([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, a.handle(), 0, VK_WHOLE_SIZE, 7); });
  Submission copy = v.device->submit([&](VkCommandBuffer cmd) {
    full_barrier(cmd);  // the copy reads what the earlier submission wrote
    a.record_copy(cmd, b, 0, 0, kBytes);
  });
  copy.wait();
  EXPECT_EQ(word_at(b, kBytes - 4), 7u) << "the copy ran before the fill it was submitted after";
  fill.wait();  // already done: returns at once
  {
    Submission abandoned = v.device->submit([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, b.handle(), 0, VK_WHOLE_SIZE, 9); });
  }
  EXPECT_EQ(word_at(b, kBytes - 4), 9u) << "destroying a submission did not wait for it";
}

TEST(PipelinedSampling, EverySampleIsADispatchTimedWithinItsOwnBatch) {
  Lavapipe& v = lavapipe();
  const Problem lum = make_luminance_problem(InputKind::Random, 256, 192, 5);
  KernelRun run(*v.device, v.compiler, find_kernel("lum/sequential_256"), lum);
  GpuTimer timer(*v.device, v.compiler, uint64_t{1} << 20);
  SamplingOptions options;
  options.stop.min_samples = 10;
  options.stop.min_gpu_seconds = 0.001;
  options.stop.max_wall_seconds = 0.5;
  options.batch_seconds = 0.002;  // many short batches: the two query slots take turns often
  for (const bool cold : {false, true}) {
    const Measurement m = timer.sample([&](VkCommandBuffer cmd) { run.record_poison(cmd); },
                                       [&](VkCommandBuffer cmd) { run.record(cmd); }, cold, options);
    ASSERT_GE(m.seconds.size(), 2 * options.stop.min_samples) << "the first batch and at least one behind it";
    double timed = 0;
    for (const double s : m.seconds) {
      EXPECT_GT(s, 0) << "a sample read from a query slot the other batch had reset";
      timed += s;
    }
    // Timestamps of a batch read against another's would span the host's whole sampling, or wrap to years.
    EXPECT_LT(timed, m.sampling_wall_seconds) << "the timed spans add up to more than the sampling took";
    EXPECT_EQ(m.stats.count, m.seconds.size()) << "the statistics leave out samples";
  }
}
