#include "connection_queue.hpp"

#include <sys/socket.h>

#include <string>

#include "own_sockets.hpp"

namespace sw {

namespace {
thread_local int current = -1;
}  // namespace

int current_connection() { return current; }

ConnectionQueue::ConnectionQueue(std::unique_ptr<httplib::TaskQueue> inner, int listen_port)
    : inner_(std::move(inner)), listen_port_(listen_port) {}

void ConnectionQueue::enqueue(std::function<void()> fn) {
  int fd = -1;
  {
    const std::lock_guard lock(mutex_);
    fd = find_own_socket([&](int candidate) {
      if (served_.count(candidate)) return false;
      int listening = 0;
      socklen_t len = sizeof listening;
      std::string host;
      int port = 0;
      return getsockopt(candidate, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && !listening &&
             socket_address(candidate, false, host, port) && port == listen_port_;
    });
    if (fd >= 0) served_.insert(fd);
  }
  inner_->enqueue([this, fd, fn = std::move(fn)] {
    current = fd;
    fn();  // serves the connection and closes its socket
    current = -1;
    if (fd >= 0) {
      const std::lock_guard lock(mutex_);
      served_.erase(fd);
    }
  });
}

}  // namespace sw
