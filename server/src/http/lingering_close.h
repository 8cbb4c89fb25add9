// Closing a connection after an answer that leaves the request's body unread (or read only in part).
// cpp-httplib 0.11.4 keeps such a connection alive and parses the unread body as the next request
// (request desync); it offers no way to close from a handler. So the answer says "Connection: close"
// (mark_close), and after it is written close_if_marked takes the thread's connection (pipelining_server.h), sends
// FIN, drains what the client still sends for at most `linger` (so the answer is not lost to a reset), and shuts the
// socket for reading; the connection's loop ends there too. No byte after the answer is read as a request.
#pragma once

#include <httplib.h>

#include <chrono>

namespace shaderwatch {

// Whether the request carries a body (Content-Length above 0, or any Transfer-Encoding).
bool declares_body(const httplib::Request& req);
void mark_close(httplib::Response& res);
// After the answer is written (httplib's logger hook).
void close_if_marked(const httplib::Response& res, std::chrono::milliseconds linger = std::chrono::milliseconds(1000));

}  // namespace shaderwatch
