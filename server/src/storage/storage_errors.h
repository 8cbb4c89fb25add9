// What the database layer throws beyond sql::Conflict (storage/sql.h): its own error types, so the engines
// need nothing of the stages above them.
#pragma once

#include <stdexcept>
#include <string>

namespace shaderwatch {

// The database has no room (its disk is full, or --max-db-mib is reached): the write in progress is
// rolled back. The HTTP layer answers 507.
struct StorageFull : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The database server cannot be reached (PostgreSQL down, restarting or cut off). `reconnected`: the connection
// broke under a statement and is live again, so the request may be tried once more; otherwise the HTTP layer
// answers 503 with a Retry-After.
struct DatabaseUnavailable : std::runtime_error {
  DatabaseUnavailable(const std::string& what, bool reconnected) : std::runtime_error(what), reconnected(reconnected) {}
  bool reconnected;
};

}  // namespace shaderwatch
