// shaderwatch-server prune: old runs' raw repetitions removed, their summaries kept (storage/prune.h).
#include <chrono>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "storage/prune.h"

namespace shaderwatch::cli {

Command add_prune_command(CLI::App& app, std::string& db) {
  struct Args {
    double days = -1;
    std::size_t keep_runs = 100;
  };
  auto a = std::make_shared<Args>();
  auto* prune = app.add_subcommand(
      "prune", "Remove the raw repetitions (each benchmark's rows as posted) of runs older than --older-than-days, keeping "
               "every run's summaries (its points, counters and outcome), the newest --keep-runs runs of each GPU, every "
               "run an open alert names and every row that is not a pass: verdicts, alerts and change points stay the "
               "same. Safe while the server runs; see also serve --prune-after-days");
  prune->add_option("--db", db, kDbHelp)->envname("SHADERWATCH_DB")->capture_default_str();
  prune->add_option("--older-than-days", a->days, "Runs that started this many days ago or earlier lose their raw rows")
      ->required()->check(CLI::NonNegativeNumber);
  prune->add_option("--keep-runs", a->keep_runs, "The newest runs of each GPU that keep their raw rows whatever their age")
      ->capture_default_str();
  return {prune, [a, &db] {
            Database d({.db = db, .readers = 1});
            const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch()).count();
            const PruneOptions o{now - static_cast<std::int64_t>(a->days * 86400e3), a->keep_runs};
            const auto s = prune_raw_rows(d, o, [](const std::string& line) { std::cerr << "prune: " << line << std::endl; });
            std::cout << "prune: " << s.packs << " packs of " << s.runs << " runs emptied in " << d.location() << "\n";
            return 0;
          }};
}

}  // namespace shaderwatch::cli
