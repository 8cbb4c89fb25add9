// shaderwatch-server backup: a consistent copy of the SQLite database while the server runs.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "storage/sqlite_backup.h"

namespace shaderwatch::cli {

Command add_backup_command(CLI::App& app, std::string& db) {
  auto file = std::make_shared<std::string>();
  auto* backup = app.add_subcommand(
      "backup", "Copy the SQLite database (--db) to FILE while the server goes on storing runs: the database as of "
                "the start of the copy, checked, written whole or not at all. To restore, stop the server and put FILE "
                "in the database's place (server/README.md). PostgreSQL: pg_dump");
  backup->add_option("--db", db, kDbHelp)->envname("SHADERWATCH_DB")->capture_default_str();
  backup->add_option("FILE", *file, "Where to write the copy (must not exist)")->required();
  return {backup, [file, &db] {
            const auto s = backup_sqlite(db, *file, [](const std::string& line) { std::cerr << "backup: " << line << std::endl; });
            std::cout << "backup: " << s.runs << " runs, " << s.bytes << " bytes in " << *file << "\n";
            return 0;
          }};
}

}  // namespace shaderwatch::cli
