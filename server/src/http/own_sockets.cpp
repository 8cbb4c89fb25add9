#include "http/own_sockets.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>

namespace shaderwatch {

int find_own_socket(const std::function<bool(int fd)>& match) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return -1;
  int found = -1;
  while (const dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;
    if (match(static_cast<int>(fd))) {
      found = static_cast<int>(fd);
      break;
    }
  }
  closedir(dir);
  return found;
}

bool socket_address(int fd, bool peer, std::string& host, int& port) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if ((peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) : getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len)) != 0)
    return false;
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    port = ntohs(v4.sin_port);
    if (!inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text)) return false;
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    port = ntohs(v6.sin6_port);
    if (!inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text)) return false;
  } else {
    return false;
  }
  host = text;
  return true;
}

int listening_socket(int port) {
  return find_own_socket([port](int fd) {
    int listening = 0;
    socklen_t len = sizeof listening;
    std::string host;
    int local_port = 0;
    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening &&
           socket_address(fd, false, host, local_port) && local_port == port;
  });
}

}  // namespace shaderwatch
