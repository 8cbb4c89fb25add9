#include "http/connection_queue.h"

#include <sys/socket.h>

#include <string>

#include "http/own_sockets.h"

namespace shaderwatch {

namespace {
thread_local int current = -1;
}  // namespace

int current_connection() { return current; }

ConnectionQueue::ConnectionQueue(std::unique_ptr<httplib::TaskQueue> inner, int listen_port)
    : inner_(std::move(inner)), listen_port_(listen_port) {}

void ConnectionQueue::enqueue(std::function<void()> fn) {
  int fd = -1;
  std::pair<int, std::string> key;
  {
    const std::lock_guard lock(mutex_);
    fd = find_own_socket([&](int candidate) {
      int listening = 0;
      socklen_t len = sizeof listening;
      std::string host, peer_host;
      int port = 0, peer_port = 0;
      if (getsockopt(candidate, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening ||
          !socket_address(candidate, false, host, port) || port != listen_port_ ||
          !socket_address(candidate, true, peer_host, peer_port))
        return false;
      key = {candidate, peer_host + ":" + std::to_string(peer_port)};
      return !served_.count(key);
    });
    if (fd >= 0) served_.insert(key);
  }
  inner_->enqueue([this, fd, key, fn = std::move(fn)] {
    current = fd;
    fn();  // serves the connection and closes its socket
    current = -1;
    if (fd >= 0) {
      const std::lock_guard lock(mutex_);
      served_.erase(key);
    }
  });
}

}  // namespace shaderwatch
