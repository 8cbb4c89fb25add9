#include "storage/prune.h"

#include <set>
#include <utility>
#include <vector>

#include "common/alert_states.h"

namespace shaderwatch {

PruneSummary prune_raw_rows(Database& db, const PruneOptions& o, const std::function<void(const std::string&)>& progress) {
  PruneSummary out;
  std::set<std::int64_t> runs;
  // Chosen afresh for each batch: posts and triage go on between them.
  const std::string open = open_alert_states_sql();
  const std::string choose =
      "SELECT rs.run_id, rs.benchmark_id FROM result_sets rs JOIN runs r ON r.id=rs.run_id"
      " WHERE rs.packed IS NOT NULL AND rs.outcome='pass' AND rs.has_iteration=1 AND r.started_ms<?"
      " AND rs.run_id NOT IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY gpu_id ORDER BY started_ms DESC,"
      " id DESC) AS newest FROM runs) k WHERE k.newest<=?)"
      " AND rs.run_id NOT IN (SELECT run_id FROM alerts WHERE state IN " + open +
      " UNION SELECT prev_run_id FROM alerts WHERE state IN " + open + " AND prev_run_id IS NOT NULL"
      " UNION SELECT raised_by FROM alerts WHERE state IN " + open + ") LIMIT ?";
  for (;;) {
    auto lk = db.write();
    auto& w = lk.conn();
    sql::Tx tx(w);
    std::vector<std::pair<std::int64_t, std::int64_t>> batch;
    auto& st = w.q(choose);
    st.bind(1, o.before_ms).bind(2, static_cast<std::int64_t>(o.keep_runs)).bind(3, static_cast<std::int64_t>(o.batch));
    while (st.step()) batch.emplace_back(st.i64(0), st.i64(1));
    st.reset();
    if (batch.empty()) break;
    auto& empty = w.q("UPDATE result_sets SET packed=NULL WHERE run_id=? AND benchmark_id=?");
    for (const auto& [run, benchmark] : batch) {
      empty.reset();
      empty.bind(1, run).bind(2, benchmark).run();
      runs.insert(run);
    }
    tx.commit();
    out.packs += batch.size();
    progress(std::to_string(out.packs) + " packs of " + std::to_string(runs.size()) + " runs pruned so far");
  }
  out.runs = runs.size();
  return out;
}

}  // namespace shaderwatch
