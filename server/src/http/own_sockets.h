// This process's sockets, found by what they are connected to. cpp-httplib 0.11.4 (Debian's, compiled) hands
// its task queue no socket: the header deadline from accept (connection_queue.h) and widening the listen backlog it
// fixes at 5 both need the descriptor.
#pragma once

#include <functional>
#include <string>

namespace shaderwatch {

// The first open descriptor of this process for which `match` is true, or -1.
int find_own_socket(const std::function<bool(int fd)>& match);

// The numeric address and port of a socket's local (peer = false) or remote end.
bool socket_address(int fd, bool peer, std::string& host, int& port);

// The listening TCP socket of this process on `port`, or -1.
int listening_socket(int port);

}  // namespace shaderwatch
