// A few threads kept for pure work beside a caller: detection analyses a run's ~350 series windows, judges its gate
// and learns the next run's noise model at once. The threads are made once: a thread made per post paid for fresh
// memory on every post (its allocator's heap), measured at ~10 ms of CPU per post on top of the work.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace shaderwatch {

class WorkerPool {
 public:
  // The threads worth using here: the machine's cores, at most kMostWorkers (at least 1).
  static std::size_t default_size();
  static constexpr std::size_t kMostWorkers = 8;

  explicit WorkerPool(std::size_t threads = default_size());
  ~WorkerPool();  // waits for every task given
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs f() on a pool thread, tasks in the order given; its result (or exception) comes through the future.
  template <class F>
  auto submit(F f) -> std::future<decltype(f())> {
    auto task = std::make_shared<std::packaged_task<decltype(f())()>>(std::move(f));
    auto result = task->get_future();
    post([task] { (*task)(); });
    return result;
  }

  // f(i) for every i < n, each once, by the caller and the pool's free threads; returns when all are done. Each
  // item's result goes to its own slot, so the answer is the same at any number of threads. The first exception an
  // f throws is thrown here.
  void parallel_for(std::size_t n, const std::function<void(std::size_t)>& f);

 private:
  void post(std::function<void()> task);
  void run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace shaderwatch
