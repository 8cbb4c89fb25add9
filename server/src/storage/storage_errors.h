// What the database layer throws beyond sql::Conflict (storage/sql.h): its own error types, so the engines
// need nothing of the stages above them.
#pragma once

#include <stdexcept>

namespace shaderwatch {

// The database has no room (its disk is full, or --max-db-mib is reached): the write in progress is
// rolled back. The HTTP layer answers 507.
struct StorageFull : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace shaderwatch
