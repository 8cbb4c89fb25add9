// A problem with what the client sent, and the query string it sent: every stage that reads input
// throws ClientError, and the HTTP layer answers it with its status and a JSON error naming the field.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

namespace shaderwatch {

// Always answered with a 4xx and a JSON error naming the field (JSON-path-like, e.g.
// "benchmark.benchmarks[3].real_time").
struct ClientError : std::runtime_error {
  ClientError(int status, std::string message, std::string field = {})
      : std::runtime_error(message), status(status), field(std::move(field)) {}
  int status;
  std::string field;
};

using Params = std::map<std::string, std::string>;  // query-string parameters

}  // namespace shaderwatch
