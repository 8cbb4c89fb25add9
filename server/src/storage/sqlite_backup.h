// `shaderwatch-server backup`: a consistent copy of an SQLite database while the server keeps storing runs, by
// SQLite's online backup API from inside one read transaction (the copy is the database as of its start; WAL lets
// posts go on beside it). Written to FILE.partial, synced, checked, then renamed: FILE is whole or absent, also
// after a kill -9 mid-copy. PostgreSQL is backed up with pg_dump (server/README.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace shaderwatch {

struct BackupSummary {
  std::uint64_t bytes = 0, runs = 0;
};

// `db` as --db takes it (an SQLite path or sqlite:PATH; a PostgreSQL URI is refused, naming pg_dump); `to` must not
// exist. Throws std::runtime_error saying what is wrong. progress: a line now and then for a person waiting.
BackupSummary backup_sqlite(const std::string& db, const std::string& to,
                            const std::function<void(const std::string&)>& progress);

}  // namespace shaderwatch
