// `shaderwatch-server migrate`: one database's contents into another, e.g. an SQLite file into
// PostgreSQL when one machine is no longer enough.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace shaderwatch {

struct CopiedTable {
  std::string table;
  std::uint64_t rows = 0;
};

// Copies every table of `from` into `to` (each as --db takes it: a path, sqlite:PATH or
// postgresql://...), ids and all, in one transaction, then checks each table's row count. Both are
// brought to this server's schema first; `to` must hold no runs and no tokens. Throws
// std::runtime_error saying what is wrong. progress: a line now and then for a person waiting.
std::vector<CopiedTable> copy_database(const std::string& from, const std::string& to,
                                       const std::function<void(const std::string&)>& progress);

}  // namespace shaderwatch
