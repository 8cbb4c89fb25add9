// shaderwatch-server: serve the results API, manage upload tokens, migrate, back up or prune a database, post results.
// Each subcommand is its own file (cli/commands.h).
#include <iostream>
#include <vector>

#include "cli/commands.h"
#include "common/client_error.h"

int main(int argc, char** argv) {
  namespace cli = shaderwatch::cli;
  CLI::App app{"shaderwatch-server: results server for shaderwatch (Google Benchmark JSON in, "
               "regressions out). See server/README.md for the API."};
  app.require_subcommand(1);
  std::string db = "./shaderwatch.db";
  app.add_option("--db", db, cli::kDbHelp + " (serve, token, backup, prune): before or after the subcommand")->envname("SHADERWATCH_DB");
  const std::vector<cli::Command> commands = {cli::add_serve_command(app, db), cli::add_token_command(app, db),
                                              cli::add_migrate_command(app), cli::add_backup_command(app, db),
                                              cli::add_prune_command(app, db),
                                              cli::add_post_command(app)};
  CLI11_PARSE(app, argc, argv);
  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const shaderwatch::ClientError& e) {
    std::cerr << "error: " << e.what() << (e.field.empty() ? "" : " (" + e.field + ")") << std::endl;
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
