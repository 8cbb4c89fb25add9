#include "http/pipelining_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "http/own_sockets.h"

namespace shaderwatch {

namespace {

thread_local bool closed_by_answer = false;
thread_local int current = -1;

bool wait_for(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int r = poll(&p, 1, timeout_ms);
    if (r >= 0 || errno != EINTR) return r > 0;
  }
}

// One connection's bytes, read ahead into a buffer that lives as long as the connection, with httplib's read and
// write timeouts (each wait for the socket).
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(int fd, int read_timeout_ms, int write_timeout_ms)
      : fd_(fd), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms) {}

  bool buffered() const { return pos_ < end_; }
  bool is_readable() const override { return buffered() || wait_for(fd_, POLLIN, read_timeout_ms_); }
  bool is_writable() const override { return wait_for(fd_, POLLOUT, write_timeout_ms_); }

  ssize_t read(char* ptr, size_t size) override {
    if (!buffered()) {
      if (!wait_for(fd_, POLLIN, read_timeout_ms_)) return -1;
      // A large read (a body) goes straight to its destination: nothing is left over from it.
      if (size >= sizeof buf_) return receive(ptr, size);
      const ssize_t n = receive(buf_, sizeof buf_);
      if (n <= 0) return n;
      pos_ = 0;
      end_ = static_cast<size_t>(n);
    }
    const size_t k = std::min(size, end_ - pos_);
    std::memcpy(ptr, buf_ + pos_, k);
    pos_ += k;
    return static_cast<ssize_t>(k);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    for (;;) {
      const ssize_t n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
      if (n >= 0 || errno != EINTR) return n;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { socket_address(fd_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { socket_address(fd_, false, ip, port); }
  socket_t socket() const override { return fd_; }

 private:
  ssize_t receive(char* ptr, size_t size) const {
    for (;;) {
      const ssize_t n = ::recv(fd_, ptr, size, 0);
      if (n >= 0 || errno != EINTR) return n;
    }
  }

  const int fd_;
  const int read_timeout_ms_, write_timeout_ms_;
  char buf_[16384];
  size_t pos_ = 0, end_ = 0;
};

int to_ms(time_t sec, time_t usec) { return static_cast<int>(sec * 1000 + usec / 1000); }

}  // namespace

void connection_closed_by_answer() { closed_by_answer = true; }
int current_connection() { return current; }

bool PipeliningServer::next_request_arrives(socket_t sock) const {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
  // In slices, so a stopping server (svr_sock_ closed) is not kept waiting for an idle connection.
  while (svr_sock_ != INVALID_SOCKET) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{sock, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(std::min<long long>(left, 100)));
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
  }
  return false;
}

// As httplib's own loop (keep-alive count, timeouts, the last request answered with "Connection: close"), with
// the stream made once.
bool PipeliningServer::process_and_close_socket(socket_t sock) {
  ConnectionStream strm(sock, to_ms(read_timeout_sec_, read_timeout_usec_), to_ms(write_timeout_sec_, write_timeout_usec_));
  current = sock;
  bool ok = false;
  for (size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    if (!strm.buffered() && !next_request_arrives(sock)) break;
    closed_by_answer = false;
    bool connection_closed = false;
    ok = process_request(strm, left == 1, connection_closed, nullptr);
    if (!ok || connection_closed || closed_by_answer) break;
  }
  closed_by_answer = false;
  current = -1;
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace shaderwatch
