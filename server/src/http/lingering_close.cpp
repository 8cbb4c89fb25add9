#include "http/lingering_close.h"

#include <poll.h>
#include <sys/socket.h>

#include <string>

#include "http/connection_queue.h"
#include "http/own_sockets.h"
#include "http/pipelining_server.h"

namespace shaderwatch {

namespace {

// The socket whose peer is the request's client and whose local port is the request's: one connection,
// served by the calling thread.
int connection_socket(const httplib::Request& req) {
  return find_own_socket([&](int fd) {
    std::string peer_host, local_host;
    int peer_port = 0, local_port = 0;
    return socket_address(fd, true, peer_host, peer_port) && peer_port == req.remote_port &&
           peer_host == req.remote_addr && socket_address(fd, false, local_host, local_port) &&
           local_port == req.local_port;
  });
}

}  // namespace

bool declares_body(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding")) return true;
  const std::string length = req.get_header_value("Content-Length");
  return !length.empty() && length.find_first_not_of('0') != std::string::npos;
}

void mark_close(httplib::Response& res) {
  res.headers.erase("Keep-Alive");
  res.headers.erase("Connection");
  res.set_header("Connection", "close");
}

void close_if_marked(const httplib::Request& req, const httplib::Response& res, std::chrono::milliseconds linger) {
  if (res.get_header_value("Connection") != "close") return;
  connection_closed_by_answer();  // nothing the connection's stream has read past the request is served
  const int fd = current_connection() >= 0 ? current_connection() : connection_socket(req);
  if (fd < 0) return;
  shutdown(fd, SHUT_WR);  // the answer is out; FIN after it
  const auto deadline = std::chrono::steady_clock::now() + linger;
  char sink[16384];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    if (recv(fd, sink, sizeof sink, 0) <= 0) break;  // the client closed too
  }
  shutdown(fd, SHUT_RD);
}

}  // namespace shaderwatch
