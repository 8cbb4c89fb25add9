// cpp-httplib's task queue, grown on demand. httplib gives each connection a worker for as long as the
// connection lives: with its fixed pool of 8, eight idle or slow (slowloris) sockets stopped the whole
// server. Here a connection that finds no idle worker starts one, up to max_threads; workers stay for
// the next connections. Past max_threads connections wait their turn (put nginx in front for more:
// server/README.md).
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace shaderwatch {

class GrowingTaskQueue : public httplib::TaskQueue {
 public:
  explicit GrowingTaskQueue(std::size_t max_threads) : max_threads_(max_threads) {}
  ~GrowingTaskQueue() override;
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  void work();

  const std::size_t max_threads_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace shaderwatch
