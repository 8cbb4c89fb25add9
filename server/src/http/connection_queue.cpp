#include "http/connection_queue.h"

#include <sys/socket.h>

#include <string>

#include "http/own_sockets.h"

namespace shaderwatch {

ConnectionQueue::ConnectionQueue(std::unique_ptr<httplib::TaskQueue> inner, int listen_port)
    : inner_(std::move(inner)), listen_port_(listen_port), watchdog_([this] { watch(); }) {}

ConnectionQueue::~ConnectionQueue() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

void ConnectionQueue::shutdown() { inner_->shutdown(); }

void ConnectionQueue::set(int fd, bool awaiting, Clock::time_point due) {
  const std::lock_guard lock(mutex_);
  const auto it = served_.lower_bound({fd, std::string()});
  if (it == served_.end() || it->first.first != fd) return;
  it->second = {awaiting, due};
}
void ConnectionQueue::headers_in(int fd) { set(fd, false, Clock::time_point::max()); }
void ConnectionQueue::answered(int fd) { set(fd, true, Clock::now() + kNextHeadersDue); }

// Once a second: a connection whose headers are overdue is shut down, if the socket is still the one accepted (same
// peer: a job's descriptor is closed just before its entry goes, and a new connection may get the number).
void ConnectionQueue::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_cv_.wait_for(lock, std::chrono::seconds(1), [&] { return stopping_; })) {
    const auto now = Clock::now();
    for (auto& [key, served] : served_) {
      if (!served.awaiting_headers || now < served.due) continue;
      std::string host;
      int port = 0;
      if (socket_address(key.first, true, host, port) && host + ":" + std::to_string(port) == key.second)
        ::shutdown(key.first, SHUT_RDWR);
      served.awaiting_headers = false;  // once
    }
  }
}

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
    if (fd >= 0) served_[key] = {true, Clock::now() + kFirstHeadersDue};
  }
  inner_->enqueue([this, fd, key, fn = std::move(fn)] {
    fn();  // serves the connection and closes its socket
    if (fd >= 0) {
      const std::lock_guard lock(mutex_);
      served_.erase(key);
    }
  });
}

}  // namespace shaderwatch
