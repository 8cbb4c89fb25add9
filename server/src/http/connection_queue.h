// httplib's task queue with a deadline on each connection's request headers. cpp-httplib 0.11.4 hands a worker an
// opaque job per accepted connection: the listener's enqueue (right after accept, one connection at a time) finds
// the one socket on the listening port it has not seen yet, so the deadline runs from the accept. A socket is known
// by its descriptor and its peer: a job's descriptor is closed before the job ends, and a connection accepted in
// between may get the same number. The serving thread knows its socket (current_connection, pipelining_server.h).
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace shaderwatch {

// It cuts off a client that takes too long to send a request's headers (a slowloris trickling a byte a second
// would hold a worker for ever: httplib's read timeout restarts with every byte): they are due within
// kFirstHeadersDue of the connection's accept, and within kNextHeadersDue of the previous answer on a kept-alive
// connection. A watchdog shuts such a socket down; its worker then ends.
class ConnectionQueue : public httplib::TaskQueue {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr auto kFirstHeadersDue = std::chrono::seconds(10);
  static constexpr auto kNextHeadersDue = std::chrono::seconds(12);  // the 2 s keep-alive wait, then 10 s

  // `inner` runs the jobs; `listen_port` is the server's.
  ConnectionQueue(std::unique_ptr<httplib::TaskQueue> inner, int listen_port);
  ~ConnectionQueue() override;
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

  // The connection `fd` (current_connection()) has a request's headers in: no deadline while it is served.
  void headers_in(int fd);
  // Its answer is written: the next request's headers are due within kNextHeadersDue.
  void answered(int fd);

 private:
  struct Served {
    bool awaiting_headers = true;
    Clock::time_point due;
  };
  using Key = std::pair<int, std::string>;  // (socket, peer address:port)
  void watch();
  void set(int fd, bool awaiting, Clock::time_point due);

  std::unique_ptr<httplib::TaskQueue> inner_;
  const int listen_port_;
  std::mutex mutex_;
  std::map<Key, Served> served_;  // connections whose job has not ended
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread watchdog_;
};

}  // namespace shaderwatch
