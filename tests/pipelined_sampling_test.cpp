// Issue 31: sampling batches are submitted before the previous one is waited for, so the GPU does not idle between
// them. On lavapipe (made to queue a batch ahead, as on a GPU): submissions run in the order made, one abandoned is
// waited for before its memory can go, and the two batches in flight keep their timestamps apart.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "lavapipe_device.h"

using namespace shaderwatch;

namespace {

uint32_t word_at(const Buffer& buffer, VkDeviceSize offset) {
  uint32_t word = 0;
  std::memcpy(&word, buffer.mapped() + offset, sizeof word);
  return word;
}

}  // namespace

TEST(Submission, RunInTheOrderMadeAndOneNeverWaitedForIsWaitedForWhenDestroyed) {
  LavapipeDevice& v = lavapipe();
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
  SampledKernel kernel(256, 192);
  SamplingOptions options = short_sampling(0.5);
  options.batch_seconds = 0.002;  // many short batches: the two query slots take turns often
  options.batches_ahead = 1;      // as on a GPU (lavapipe's default is none ahead)
  for (const bool cold : {false, true, false, true}) {
    const Measurement m = kernel.sample(options, cold);
    ASSERT_GE(m.seconds.size(), 2 * options.stop.min_samples) << "the first batch and at least one behind it";
    double timed = 0;
    for (const double s : m.seconds) {
      EXPECT_GT(s, 0) << "a sample read from a query slot the other batch had reset";
      timed += s;
    }
    // Timestamps of a batch read against another's would span the host's whole sampling, or wrap to years.
    EXPECT_LT(timed, m.sampling_wall_seconds) << "the timed spans add up to more than the sampling took";
    EXPECT_EQ(m.stats.count, m.seconds.size()) << "the statistics leave out samples";
    // Spans are read in nanoseconds: two dispatches seldom take the same time to the tick (1 tie in 90 was seen). A
    // batch that read the slot the next one had reset reads that batch's spans, and each of those comes twice.
    const std::set<double> distinct(m.seconds.begin(), m.seconds.end());
    EXPECT_GE(distinct.size(), m.seconds.size() - m.seconds.size() / 20) << "samples repeat: two batches read one query slot";
  }
}
