#include "run/gpu_timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <numeric>

namespace shaderwatch {

namespace {
constexpr uint32_t kMaxBatch = 1024;
// A batch's queries: two per sample, then one at the batch's start (its end is the last sample's end).
constexpr uint32_t kSlotQueries = 2 * kMaxBatch + 1;
constexpr double kWarmupSettled = 0.01;  // successive warm-up batch medians within this: the clocks are up
}  // namespace

BufferReader::BufferReader(Device& device, ShaderCompiler& compiler, const Buffer& source, bool tiled)
    : sink_(device, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), bytes_(source.size() & ~uint64_t{15}) {
  const ShaderRef shader = read_probe_shader(tiled);
  pipeline_ = std::make_unique<ComputePipeline>(
      device, compiler.compile(shader.file, shader.defines),
      std::vector<Resource>{{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, source.handle()}, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sink_.handle()}});
  const uint64_t count = bytes_ / 16;
  push_.values[0] = static_cast<uint32_t>(count);
  if (tiled) {  // 16x16 invocations read 64x16 vec4 of the image
    push_.values[1] = static_cast<uint32_t>(std::min<uint64_t>(count, kProbeImageWidth));
    groups_x_ = static_cast<uint32_t>(ceil_div(push_.values[1], 64));
    groups_y_ = static_cast<uint32_t>(ceil_div(ceil_div(count, push_.values[1]), 16));
  } else {
    groups_x_ = grid_stride_groups(device.info(), count, 256);
    push_.values[1] = groups_x_;
  }
}

GpuTimer::GpuTimer(Device& device, ShaderCompiler& compiler, uint64_t flush_bytes) : device_(device) {
  const uint32_t bits = device.timestamp_valid_bits();
  if (bits == 0) {
    throw UnsupportedError("the queue of " + device.info().name + " writes no timestamps (timestampValidBits 0)");
  }
  mask_ = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  period_ns_ = device.info().timestamp_period;
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = 2 * kSlotQueries;
  vk_check(vkCreateQueryPool(device.handle(), &info, nullptr, &pool_), "vkCreateQueryPool");
  if (flush_bytes) {
    flush_bytes = std::min<uint64_t>(flush_bytes, device.info().max_storage_buffer_range) & ~uint64_t{3};
    scratch_ = std::make_unique<Buffer>(device, flush_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    device.submit_and_wait([&](VkCommandBuffer cmd) {
      vkCmdFillBuffer(cmd, scratch_->handle(), 0, VK_WHOLE_SIZE, 0x3F800000u);  // 1.0f: read_probe's sum stays positive
    });
    flush_ = std::make_unique<BufferReader>(device, compiler, *scratch_);
  }
}

GpuTimer::~GpuTimer() {
  if (device_.lost().empty()) vkDestroyQueryPool(device_.handle(), pool_, nullptr);
}

GpuTimer::Batch GpuTimer::submit_batch(uint32_t slot, uint32_t count, const std::function<void(VkCommandBuffer)>& prepare,
                                       const std::function<void(VkCommandBuffer)>& timed, bool cold) {
  if (cold && !flush_) throw std::logic_error("cold sampling needs a flush buffer");
  const uint32_t first = slot * kSlotQueries;
  Submission submission = device_.submit([&](VkCommandBuffer cmd) {
    vkCmdResetQueryPool(cmd, pool_, first, 2 * count + 1);
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_, first + 2 * count);
    for (uint32_t i = 0; i < count; ++i) {
      prepare(cmd);
      if (cold) {
        // Reading (not writing) the scratch buffer evicts the kernel's data and leaves clean lines: after a
        // write-based flush the timed kernel paid ~8 us at 4K on an H200 to write back dirty lines.
        full_barrier(cmd);
        flush_->record(cmd);
      }
      full_barrier(cmd);
      vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_, first + 2 * i);
      timed(cmd);
      // Also orders the next batch's first `prepare` after this batch's last dispatch.
      full_barrier(cmd);
      vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_, first + 2 * i + 1);
    }
  });
  return {std::move(submission), slot, count};
}

std::vector<double> GpuTimer::read_batch(Batch& batch, double& seconds_per_sample) {
  batch.submission.wait();
  const uint32_t count = batch.count;
  std::vector<uint64_t> ticks(2 * count + 1);
  vk_check(vkGetQueryPoolResults(device_.handle(), pool_, batch.slot * kSlotQueries, 2 * count + 1,
                                 ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
           "vkGetQueryPoolResults");
  auto seconds_between = [&](uint64_t from, uint64_t to) {
    return static_cast<double>((to - from) & mask_) * period_ns_ * 1e-9;  // wraps correctly within the valid bits
  };
  std::vector<double> seconds(count);
  for (uint32_t i = 0; i < count; ++i) seconds[i] = seconds_between(ticks[2 * i], ticks[2 * i + 1]);
  seconds_per_sample = seconds_between(ticks[2 * count], ticks[2 * count - 1]) / count;
  return seconds;
}

Measurement GpuTimer::sample(const std::function<void(VkCommandBuffer)>& prepare,
                             const std::function<void(VkCommandBuffer)>& timed, bool cold,
                             const SamplingOptions& options, bool warm) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  double per_sample = 0;  // GPU seconds per sample, batch sizes follow it
  auto run = [&](uint32_t count) {  // a warm-up batch, waited for
    Batch batch = submit_batch(0, count, prepare, timed, cold);
    return read_batch(batch, per_sample);
  };
  auto batch_for = [&](double seconds, double fewest) {
    return static_cast<uint32_t>(std::clamp(seconds / std::max(per_sample, 1e-7), fewest, double{kMaxBatch}));
  };
  // Warm-up: same work, untimed (SamplingOptions says how long and why). One dispatch first, then short
  // batches: a slow kernel overshoots the minimum by one dispatch, not by a batch.
  const double idle = since(last_busy_);
  const double least = std::min(idle >= options.long_idle_seconds ? idle : options.warmup_seconds, options.max_warmup_seconds);
  const auto warmup_start = Clock::now();
  double previous_median = 0;
  auto clocks_up = [&] { return !clocks_ || clocks_->clocks_up(); };
  const bool needs_warmup = !warm || idle >= options.long_idle_seconds || !clocks_up();
  for (uint32_t n = 1; needs_warmup;) {
    const double median = median_of(run(n));
    const double elapsed = since(warmup_start);
    const bool settled = std::abs(median - previous_median) <= kWarmupSettled * median;
    if (elapsed >= options.max_warmup_seconds || (elapsed >= least && settled && clocks_up())) break;
    previous_median = median;
    n = batch_for(elapsed < least ? std::min(least - elapsed, options.warmup_batch_seconds) : options.warmup_batch_seconds, 1);
  }
  const double warmup_wall = since(warmup_start);
  if (clocks_) clocks_->restart_readings();
  uint32_t batch = static_cast<uint32_t>(std::min<size_t>(options.stop.min_samples, kMaxBatch));
  auto next_batch_size = [&] { return batch_for(options.batch_seconds, 10); };
  const auto start = Clock::now();
  StoppingCriterion criterion(options.stop);
  // On a GPU the next batch is submitted before the last one is waited for, so the GPU never waits for the host
  // between them: idle gaps let its clocks drop, and the host's turn (reading, judging, recording 1000 dispatches)
  // took as long as a short batch. Two query slots: at most one batch ahead.
  const bool cpu_device = device_.info().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  const size_t ahead = 1 + std::min(1, options.batches_ahead < 0 ? (cpu_device ? 0 : 1) : options.batches_ahead);
  std::deque<Batch> flying;
  uint32_t slot = 0;
  auto launch = [&](uint32_t count) {
    flying.push_back(submit_batch(slot, count, prepare, timed, cold));
    slot ^= 1;
  };
  launch(batch);
  while (true) {
    while (flying.size() < ahead && per_sample > 0) launch(next_batch_size());
    criterion.add_batch(read_batch(flying.front(), per_sample));
    flying.pop_front();
    if (const auto reason = criterion.should_stop(since(start))) {
      // The batch behind it already ran: its samples count (more samples, no GPU time thrown away).
      for (Batch& rest : flying) criterion.add_batch(read_batch(rest, per_sample));
      last_busy_ = Clock::now();
      return {criterion.samples(), criterion.stats(), *reason, idle, warmup_wall, since(start)};
    }
  }
}

}  // namespace shaderwatch
