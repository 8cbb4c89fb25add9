#include "http/lingering_close.h"

#include <poll.h>
#include <sys/socket.h>

#include <string>

#include "http/pipelining_server.h"

namespace shaderwatch {

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

void close_if_marked(const httplib::Response& res, std::chrono::milliseconds linger) {
  if (res.get_header_value("Connection") != "close") return;
  connection_closed_by_answer();  // nothing the connection's stream has read past the request is served
  const int fd = current_connection();
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
