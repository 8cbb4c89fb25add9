// shaderwatch-server migrate: copy one database into another, empty one, all or nothing.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "storage/copy_database.h"

namespace shaderwatch::cli {

Command add_migrate_command(CLI::App& app) {
  struct Args {
    std::string from, to;
  };
  auto a = std::make_shared<Args>();
  auto* migrate = app.add_subcommand(
      "migrate", "Copy every run, result, alert and token of one database into another, empty one (e.g. an SQLite "
                 "file into PostgreSQL); row counts are checked and nothing is written unless all of it is");
  migrate->add_option("--from", a->from, "The database to copy: " + kDbHelp)->required();
  migrate->add_option("--to", a->to, "The database to fill (created and migrated if needed; must hold no runs): " + kDbHelp)
      ->required();
  return {migrate, [a] {
            for (const auto& t : copy_database(a->from, a->to, [](const std::string& line) {
                   std::cerr << "migrate: " << line << std::endl;
                 }))
              std::cout << t.table << "\t" << t.rows << "\n";
            return 0;
          }};
}

}  // namespace shaderwatch::cli
