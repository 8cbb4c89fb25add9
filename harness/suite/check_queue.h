#pragma once
// Runs the benchmark suite's checks on worker threads, at most `workers` at once, while the next benchmarks sample
// on the GPU. Checks wait for a worker in a queue of at most kMaxQueued checks and `queued_bytes` of readbacks; past
// that, submit() waits. Waiting for a free worker held the GPU idle for 5.6 s of the default suite on an H200: at
// 8K the post-processing references take seconds of every core, in a burst, while the rest of the suite's checks
// are light.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <mutex>
#include <semaphore>

#include "check/check.h"

namespace shaderwatch {

class CheckQueue {
 public:
  CheckQueue(unsigned workers, uint64_t queued_bytes) : running_(workers), byte_limit_(queued_bytes) {}
  // `bytes`: the readback the check holds until it has run.
  std::shared_future<CheckResult> submit(std::function<CheckResult()> check, uint64_t bytes);

 private:
  static constexpr unsigned kMaxQueued = 64;  // each a thread waiting for a worker
  std::counting_semaphore<> running_;
  const uint64_t byte_limit_;
  std::mutex mutex_;
  std::condition_variable done_;
  unsigned queued_ = 0;
  uint64_t queued_bytes_ = 0;
};

// An eighth of the host's memory: the readbacks that checks may hold while queued.
uint64_t queued_readback_limit();

}  // namespace shaderwatch
