#include "queries/alert_loader.h"

#include <string>
#include <unordered_map>

#include "common/client_error.h"
#include "common/driver_identity.h"
#include "ingest/benchmark_name.h"
#include "queries/query_helpers.h"
#include "common/stored_rows.h"

namespace shaderwatch {

namespace {

// Alerts a page lists are read this many at a time, in one statement each: a round trip apiece made an alerts page
// of 50 on PostgreSQL 50 round trips. The statement keeps this many slots; a short batch repeats its first id.
constexpr std::size_t kBatch = 50;

const std::string& batch_statement() {
  static const std::string sql = [] {
    std::string slots = "?";
    for (std::size_t i = 1; i < kBatch; ++i) slots += ",?";
    return std::string(
      "SELECT a.id, a.series_id, bm.name, g.id, g.vendor_id, g.device_id, g.name, g.device_type,"
      " r.run_key, pr.run_key, r.commit_id, r.driver_version, a.kind, a.severity, a.state,"
      " a.before_ns, a.after_ns, a.delta_pct, a.noise_pct, a.floor_pct, a.score, a.p_value,"
      " a.n_before, a.n_after, a.cause, a.attribution, rb.run_key, a.created_at, a.updated_at,"
      " a.state_by, a.note, r.started_at, r.driver_name, r.driver_info, r.driver_uuid, sh.shape"
      " FROM alerts a JOIN series s ON s.id=a.series_id JOIN benchmarks bm ON bm.id=s.benchmark_id"
      " JOIN gpus g ON g.id=s.gpu_id JOIN runs r ON r.id=a.run_id LEFT JOIN runs pr ON pr.id=a.prev_run_id"
      " JOIN runs rb ON rb.id=a.raised_by LEFT JOIN result_sets rs ON rs.run_id=a.run_id AND"
      " rs.benchmark_id=s.benchmark_id AND rs.packed IS NOT NULL LEFT JOIN row_shapes sh ON sh.id=rs.shape_id"
      " WHERE a.id IN (") + slots + ")";
  }();
  return sql;
}

// The alert in the statement's current row.
Alert read_alert(sql::Stmt& st) {
  Alert a;
  a.id = st.i64(0);
  a.series_id = st.i64(1);
  a.benchmark = st.text(2);
  const NameParts name = split_name(a.benchmark);
  a.kernel = name.kernel();
  a.config = name.config;
  a.gpu = {st.i64(3), st.text(4), st.text(5), st.text(6), st.text(7)};
  a.run_id = st.text(8);
  a.started_at = st.text(31);
  a.prev_run_id = opt_text(st, 9);
  a.commit = st.text(10);
  a.driver_version = st.text(11);
  a.driver = DriverIdentity{st.text(32), st.text(11), st.text(33), st.text(34)}.label();
  a.kind = st.text(12);
  a.severity = st.i64(13);
  a.state = st.text(14);
  a.before_ns = opt_f64(st, 15);
  a.after_ns = opt_f64(st, 16);
  a.delta_pct = opt_f64(st, 17);
  a.noise_pct = opt_f64(st, 18);
  a.floor_pct = opt_f64(st, 19);
  a.score = opt_f64(st, 20);
  a.p_value = opt_f64(st, 21);
  a.n_before = opt_i64(st, 22);
  a.n_after = opt_i64(st, 23);
  a.cause = st.text(24);
  a.attribution_document = st.text(25);
  a.attribution = read_attribution(a.attribution_document);
  a.raised_by_run = st.text(26);
  a.created_at = st.text(27);
  a.updated_at = st.text(28);
  a.state_by = opt_text(st, 29);
  a.note = opt_text(st, 30);
  // A wrong answer's own words (the first wrong element, the seed), from the alert's first run: its rows' shape
  // holds their errors (none where its numbers were pruned).
  if (!st.null(35))
    for (const auto& r : shape_rows(st.blob(35))) {
      if (!r.error) continue;
      a.error_message = r.error_message;
      break;
    }
  return a;
}

}  // namespace

std::vector<Alert> load_alerts(sql::Conn& c, std::span<const std::int64_t> ids) {
  std::unordered_map<std::int64_t, Alert> by_id;
  for (std::size_t from = 0; from < ids.size(); from += kBatch) {
    auto& st = c.q(batch_statement());
    for (std::size_t i = 0; i < kBatch; ++i) st.bind(static_cast<int>(i + 1), ids[from + (from + i < ids.size() ? i : 0)]);
    while (st.step()) {
      Alert a = read_alert(st);
      by_id.emplace(a.id, std::move(a));
    }
    st.reset();
  }
  std::vector<Alert> out;
  out.reserve(ids.size());
  for (const auto id : ids) {
    const auto it = by_id.find(id);
    if (it == by_id.end()) throw ClientError(404, "no alert with id " + std::to_string(id));
    out.push_back(it->second);
  }
  return out;
}

Alert load_alert(sql::Conn& c, std::int64_t id) { return load_alerts(c, std::span(&id, 1)).front(); }

}  // namespace shaderwatch
