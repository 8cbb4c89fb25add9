// httplib's task queue with each connection's socket made known to the thread that serves it.
// cpp-httplib 0.11.4 hands a worker an opaque job per accepted connection; when a request cannot even be
// parsed it answers before it records the client's address, so lingering_close.hpp could not find the
// connection by its addresses. Here the listener's enqueue (right after accept, one connection at a
// time) finds the one socket on the listening port it has not seen yet, and the job runs with it as the
// thread's current connection. A socket is known by its descriptor and its peer: a job's descriptor is
// closed before the job ends, and a connection accepted in between may get the same number.
#pragma once

#include <httplib.h>

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace shaderwatch {

class ConnectionQueue : public httplib::TaskQueue {
 public:
  // `inner` runs the jobs; `listen_port` is the server's.
  ConnectionQueue(std::unique_ptr<httplib::TaskQueue> inner, int listen_port);
  void enqueue(std::function<void()> fn) override;
  void shutdown() override { inner_->shutdown(); }

 private:
  std::unique_ptr<httplib::TaskQueue> inner_;
  const int listen_port_;
  std::mutex mutex_;
  std::set<std::pair<int, std::string>> served_;  // (socket, peer address:port) whose job has not ended
};

// The socket of the connection the calling thread serves, or -1 (not a server worker, or not found).
int current_connection();

}  // namespace shaderwatch
