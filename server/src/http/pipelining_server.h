// httplib's server with the loop that serves one connection replaced: the connection is read through one
// buffered stream for all its requests, where cpp-httplib 0.11.4 makes a new stream per request and loses the
// bytes it had buffered past the request's end. So requests a client sends before the previous answer
// (pipelining) are each read and answered in order (issue 29, finding 8: GET+POST+GET in one write got one
// answer and the POST never ran). An answer that closes its connection (lingering_close.h) ends the loop: nothing
// buffered after it is read as a request.
#pragma once

#include <httplib.h>

namespace shaderwatch {

class PipeliningServer : public httplib::Server {
 protected:
  bool process_and_close_socket(socket_t sock) override;

 private:
  // Whether a next request starts within the keep-alive timeout (false as soon as the server stops).
  bool next_request_arrives(socket_t sock) const;
};

// Called on the thread that serves a connection once an answer closed it (lingering_close.cpp).
void connection_closed_by_answer();

// The socket of the connection the calling thread serves, or -1 (not a server worker).
int current_connection();

}  // namespace shaderwatch
