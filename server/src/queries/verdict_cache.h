// Verdicts already judged, kept while nothing they read has changed: the overview asks for the verdicts of the
// latest runs on every load (20 judgements, 0.5 s at 300 runs of history), and a run's verdict rarely changes.
// A verdict is kept with what it was judged on, as read from the database (so servers sharing one PostgreSQL
// database see each other's writes): its GPU's runs up to it (every run of the GPU for a run off the main branch,
// whose baseline may be main's latest), and every alert (triage, and change points raised later). A new run after it
// changes neither, so posting a run leaves the other runs' verdicts cached; pruning changes no verdict.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "queries/verdict_answer.h"
#include "storage/sql.h"

namespace shaderwatch {

class VerdictCache {
 public:
  // What the run's verdict depends on, read now.
  static std::string key(sql::Conn& c, std::int64_t run_pk, bool on_main);
  std::optional<Verdict> get(std::int64_t run_pk, const std::string& key);
  void put(std::int64_t run_pk, const std::string& key, const Verdict& v);

  static constexpr std::size_t kMostKept = 512;  // runs' verdicts; the oldest runs go first

 private:
  std::mutex mu_;
  std::map<std::int64_t, std::pair<std::string, Verdict>> kept_;
};

}  // namespace shaderwatch
