// The HTTP face of the results server (cpp-httplib), kept out of the Store so the Store stays
// testable on its own and this header does not drag httplib.h into every user.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <thread>

#include "service/store.h"

namespace shaderwatch {

struct ServerOptions {
  std::string bind = "127.0.0.1";
  int port = 8080;  // 0: pick a free port (see HttpServer::port)
  std::size_t max_body_bytes = 64u << 20;
  bool read_token_required = false;
};

class HttpServer {
 public:
  HttpServer(Store& store, ServerOptions opts);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the socket; returns the bound port. Throws std::runtime_error when it cannot bind.
  int bind();
  // Serves until stop(); call bind() first.
  void serve();
  // bind() and serve() on a background thread; returns the port.
  int start();
  void stop();
  int port() const { return port_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace shaderwatch
