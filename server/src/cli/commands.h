// shaderwatch-server's subcommands, one file each: add_X_command declares X's options on the app and
// returns what runs X once the command line is parsed, so main only parses and dispatches.
#pragma once

#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

namespace shaderwatch::cli {

struct Command {
  CLI::App* app = nullptr;    // parsed() when this subcommand was chosen
  std::function<int()> run;   // its exit status
};

// One text names the database everywhere: an SQLite file, or a PostgreSQL server.
inline const std::string kDbHelp =
    "SQLite file (a path or sqlite:PATH) or PostgreSQL database (postgresql://USER@HOST/DB, "
    "libpq's URI; see server/README.md on choosing)";

// A file a subcommand reads (post's document, serve's --gate-config), whole; nothing where it cannot be read.
inline std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return std::nullopt;
  return std::move(text).str();
}

// `db` is main's --db, which people type before the subcommand too: the same value either way.
Command add_serve_command(CLI::App& app, std::string& db);
Command add_token_command(CLI::App& app, std::string& db);
Command add_migrate_command(CLI::App& app);
Command add_backup_command(CLI::App& app, std::string& db);
Command add_prune_command(CLI::App& app, std::string& db);
Command add_post_command(CLI::App& app);

}  // namespace shaderwatch::cli
