#include "service/store.h"

#include "detection/alert_triage.h"

namespace shaderwatch {

Store::Store(const StoreOptions& opts)
    : detect_on_ingest_(opts.detect_on_ingest),
      db_({.db = opts.db, .readers = opts.readers, .max_db_mib = opts.max_db_mib}),
      tokens_(db_),
      writer_(db_, {.max_nesting = opts.max_nesting, .main_branch = opts.main_branch}),
      what_ran_(db_.series_names()),
      detector_(db_, {.detect = opts.detect, .main_branch = opts.main_branch, .gate = opts.gate,
                      .gate_config = opts.gate_config, .gate_cpu_timings = opts.gate_cpu_timings, .what_ran = &what_ran_}),
      queries_(db_, {.detect = opts.detect, .main_branch = opts.main_branch, .gate = opts.gate,
                     .gate_config = opts.gate_config, .gate_cpu_timings = opts.gate_cpu_timings, .what_ran = &what_ran_}) {}

IngestResult Store::ingest(std::string_view body, const std::string& posted_by) {
  const WrittenRun run = writer_.write(body, posted_by);
  std::vector<std::int64_t> alerts;
  if (run.created && detect_on_ingest_) alerts = detector_.after_ingest(run);
  return {run.created, queries_.ingest_answer(run.run_pk, alerts)};
}

Alert Store::set_alert_state(std::int64_t id, std::string_view body, const std::string& by) {
  shaderwatch::set_alert_state(db_, id, body, by);
  return queries_.alert(id);
}

StoreStats Store::stats() const {
  return {writer_.runs(), writer_.results(), writer_.parse_ns(), writer_.ingest_ns(), detector_.detect_ns()};
}

}  // namespace shaderwatch
