#pragma once
// GPU timing with timestamp queries, and an adaptive sampler after nvbench: batches of timed dispatches
// until the estimate is precise enough, the noise stops improving, or time runs out.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "catalog.h"
#include "vulkan/pipelines.h"
#include "vulkan/shader_compiler.h"
#include "run/nvml_monitor.h"
#include "run/stopping_criterion.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

struct SamplingOptions {
  StopOptions stop;
  // Untimed work before sampling, so the clocks are up and the kernel's first runs are behind it: at least
  // warmup_seconds, and until two successive warm-up batches agree on the median within 1% and, where NVML reads
  // the clocks, the SM clock is up (NvmlMonitor::clocks_up). After the GPU sat
  // idle for long_idle_seconds or more (host work: generating an 8K input), at least as long as it sat idle.
  // Never past max_warmup_seconds. An H200 idle for a second or more ran its SM clock at 375-615 MHz into the
  // next benchmark; after gaps under 0.5 s NVML saw it at 1980 MHz in 338 of 338 benchmarks (README). No least
  // time after short gaps (it was 20 ms): on an H200 the default suite's medians moved by at most 0.61% (p90
  // 0.22%) without it, every benchmark at 1980 MHz, and warm-up went from 12.5 to 7.7 s.
  double warmup_seconds = 0;
  double long_idle_seconds = 0.5;
  double max_warmup_seconds = 0.5;
  double warmup_batch_seconds = 0.005;  // GPU time of a warm-up batch after the first dispatch (was 10 ms)
  // GPU time a sampling batch aims at, flushes included: the stopping rules judge the last 4 batches, so this
  // sets how long a fast kernel samples at least. 10 ms since batches run back to back (GpuTimer::sample): sampling
  // of the default suite 41.8 -> 28.1-30.2 s on an H200, two runs within 0.96% on every benchmark over 30 us. With
  // the host's turn between batches, 10 ms batches had left the GPU idle and 31 benchmarks at 1485-1710 MHz.
  double batch_seconds = 0.010;
  // Sampling batches queued behind the running one; -1: one on a GPU, none on a CPU device (lavapipe), where recording
  // the next batch takes cores from the one being timed (a 5 ms dispatch measured 10 ms on two cores).
  int batches_ahead = -1;
  // Cold runs read this many bytes (several times the last-level cache) before each timed dispatch.
  uint64_t flush_bytes = uint64_t{256} << 20;
};

// What one benchmark's sampling produced.
struct Measurement {
  std::vector<double> seconds;  // every sample, in time order
  SampleStats stats;
  StopReason stop = StopReason::TimeLimit;
  double idle_before_seconds = 0;  // since the GPU's previous sampling: host work in between
  double warmup_wall_seconds = 0, sampling_wall_seconds = 0;  // host time of the two phases
};

// Reads a whole buffer with read_probe.comp: the cold-cache flush and the read-only bandwidth probe.
class BufferReader {
 public:
  // tiled: read_probe.comp's tiled pattern (a bandwidth probe); the cold-cache flush uses the grid-stride one.
  BufferReader(Device& device, ShaderCompiler& compiler, const Buffer& source, bool tiled = false);
  void record(VkCommandBuffer cmd) const { pipeline_->dispatch(cmd, push_, groups_x_, groups_y_); }
  uint64_t bytes() const { return bytes_; }

 private:
  Buffer sink_;
  std::unique_ptr<ComputePipeline> pipeline_;
  PushConstants push_;
  uint32_t groups_x_ = 1, groups_y_ = 1;
  uint64_t bytes_;
};

class GpuTimer {
 public:
  GpuTimer(Device& device, ShaderCompiler& compiler, uint64_t flush_bytes);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  // Each sample: `prepare` (untimed: poison outputs), the cache flush when cold (untimed), then `timed`
  // between two timestamps, with full barriers so nothing overlaps the span. `warm`: `timed` is the work the
  // previous call sampled (a kernel's cold mode right after its hot one), so it is not warmed up again unless the
  // GPU sat idle long_idle_seconds since.
  Measurement sample(const std::function<void(VkCommandBuffer)>& prepare,
                     const std::function<void(VkCommandBuffer)>& timed, bool cold, const SamplingOptions& options,
                     bool warm = false);
  // The GPU's clocks (NVML): warm-up also waits for them to be up, and their readings restart with the sampling.
  // Started (NvmlMonitor::start) by the caller around each sample(). nullptr: warm-up by timing alone.
  void watch_clocks(NvmlMonitor* clocks) { clocks_ = clocks; }

 private:
  // A batch of samples on the GPU; its timestamps go to query slot `slot` (two slots: one batch runs while the next
  // waits behind it).
  struct Batch {
    Submission submission;
    uint32_t slot, count;
  };
  Batch submit_batch(uint32_t slot, uint32_t count, const std::function<void(VkCommandBuffer)>& prepare,
                     const std::function<void(VkCommandBuffer)>& timed, bool cold);
  // Waits for the batch; its samples' timed spans, and its GPU time per sample (prepare and flush included).
  std::vector<double> read_batch(Batch& batch, double& seconds_per_sample);
  Device& device_;
  NvmlMonitor* clocks_ = nullptr;
  std::chrono::steady_clock::time_point last_busy_ = std::chrono::steady_clock::now();
  VkQueryPool pool_ = VK_NULL_HANDLE;
  std::unique_ptr<Buffer> scratch_;
  std::unique_ptr<BufferReader> flush_;
  uint64_t mask_;
  double period_ns_;
};

}  // namespace shaderwatch
