#include "queries/alert_loader.h"

#include <string>

#include "common/client_error.h"
#include "common/driver_identity.h"
#include "ingest/benchmark_name.h"
#include "queries/query_helpers.h"
#include "common/stored_rows.h"

namespace shaderwatch {

Alert load_alert(sql::Conn& c, std::int64_t id) {
  auto& st = c.q(
      "SELECT a.id, a.series_id, bm.name, g.id, g.vendor_id, g.device_id, g.name, g.device_type,"
      " r.run_key, pr.run_key, r.commit_id, r.driver_version, a.kind, a.severity, a.state,"
      " a.before_ns, a.after_ns, a.delta_pct, a.noise_pct, a.floor_pct, a.score, a.p_value,"
      " a.n_before, a.n_after, a.cause, a.attribution, rb.run_key, a.created_at, a.updated_at,"
      " a.state_by, a.note, r.started_at, r.driver_name, r.driver_info, r.driver_uuid, sh.shape"
      " FROM alerts a JOIN series s ON s.id=a.series_id JOIN benchmarks bm ON bm.id=s.benchmark_id"
      " JOIN gpus g ON g.id=s.gpu_id JOIN runs r ON r.id=a.run_id LEFT JOIN runs pr ON pr.id=a.prev_run_id"
      " JOIN runs rb ON rb.id=a.raised_by LEFT JOIN result_sets rs ON rs.run_id=a.run_id AND"
      " rs.benchmark_id=s.benchmark_id AND rs.packed IS NOT NULL LEFT JOIN row_shapes sh ON sh.id=rs.shape_id"
      " WHERE a.id=?");
  st.bind(1, id);
  if (!st.step()) throw ClientError(404, "no alert with id " + std::to_string(id));
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
  st.reset();
  return a;
}

}  // namespace shaderwatch
