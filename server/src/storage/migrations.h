// The database's schema, as an append-only list of migrations applied at start.
#pragma once

#include "storage/sql.h"

namespace shaderwatch {

inline constexpr int kSchemaVersion = 12;  // how many migrations storage/migrations.cpp holds
// Brings the database to kSchemaVersion in one transaction; throws where the database is newer.
void migrate(sql::Conn& writer);

}  // namespace shaderwatch
