#include "suite/check_queue.h"

#include <unistd.h>

namespace shaderwatch {

std::shared_future<CheckResult> CheckQueue::submit(std::function<CheckResult()> check, uint64_t bytes) {
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return queued_ == 0 || (queued_ < kMaxQueued && queued_bytes_ + bytes <= byte_limit_); });
    ++queued_;
    queued_bytes_ += bytes;
  }
  return std::async(std::launch::async, [this, bytes, check = std::move(check)]() mutable {
           running_.acquire();
           struct Release {
             CheckQueue& q;
             uint64_t bytes;
             ~Release() {
               q.running_.release();
               {
                 const std::lock_guard lock(q.mutex_);
                 --q.queued_;
                 q.queued_bytes_ -= bytes;
               }
               q.done_.notify_all();
             }
           } release{*this, bytes};
           // The future keeps this lambda until the suite ends: the check, with the run and readback it holds, is
           // destroyed here, before the worker is released.
           const auto owned = std::move(check);
           return owned();
         }).share();
}

uint64_t queued_readback_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) / 8 : uint64_t{1} << 30;
}

}  // namespace shaderwatch
