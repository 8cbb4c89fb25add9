#include "common/worker_pool.h"

#include <algorithm>

namespace shaderwatch {

std::size_t WorkerPool::default_size() {
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMostWorkers);
}

WorkerPool::WorkerPool(std::size_t threads) {
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::post(std::function<void()> task) {
  {
    std::lock_guard l(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void WorkerPool::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock l(mu_);
      cv_.wait(l, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and every task given has run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

namespace {

// One parallel_for: its items are taken one at a time by whoever is free; a helper that starts after every item was
// taken finds nothing to do (it holds the job, never the caller's f, past the caller's return).
struct Job {
  std::size_t n = 0;
  const std::function<void(std::size_t)>* f = nullptr;
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  std::size_t done = 0;
  std::exception_ptr failure;

  void work() {
    std::size_t finished = 0;
    for (std::size_t i; (i = next.fetch_add(1)) < n; ++finished) {
      try {
        (*f)(i);
      } catch (...) {
        std::lock_guard l(mu);
        if (!failure) failure = std::current_exception();
      }
    }
    if (finished == 0) return;
    std::lock_guard l(mu);
    done += finished;
    if (done == n) cv.notify_all();
  }
};

}  // namespace

void WorkerPool::parallel_for(std::size_t n, const std::function<void(std::size_t)>& f) {
  if (n == 0) return;
  auto job = std::make_shared<Job>();
  job->n = n;
  job->f = &f;
  for (std::size_t t = 0; t < std::min(threads_.size(), n - 1); ++t) post([job] { job->work(); });
  job->work();
  std::unique_lock l(job->mu);
  job->cv.wait(l, [&] { return job->done == n; });
  if (job->failure) std::rethrow_exception(job->failure);
}

}  // namespace shaderwatch
