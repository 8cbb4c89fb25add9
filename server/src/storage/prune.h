// Retention: a run's raw repetitions (its packs' values) removed after a while, its summaries kept forever (the
// points, each pack's summary columns, the run, its alerts). What a verdict, an open alert or detection reads is
// never pruned, so verdicts, alerts and change points are the same before and after (tests/server/prune_test.cpp):
// - a pack is pruned only where every row passed (an error, a flake, a skip keeps its rows: they are evidence);
// - the newest `keep_runs` runs of each GPU keep theirs (the gate reads a point's spread, kept; detection its
//   value, kept; compare and the raw rows read packs), as does every run an open alert names.
// Run by `shaderwatch-server prune` and daily by `serve --prune-after-days`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "storage/database.h"

namespace shaderwatch {

struct PruneOptions {
  std::int64_t before_ms = 0;   // runs that started before this (epoch ms) lose their raw repetitions
  std::size_t keep_runs = 100;  // the newest runs of each GPU keep theirs whatever their age
  std::size_t batch = 1000;     // packs per transaction: the writer is free between batches for posts
};

struct PruneSummary {
  std::uint64_t packs = 0, runs = 0;  // packs emptied; runs that lost at least one
};

PruneSummary prune_raw_rows(Database& db, const PruneOptions& o, const std::function<void(const std::string&)>& progress);

}  // namespace shaderwatch
