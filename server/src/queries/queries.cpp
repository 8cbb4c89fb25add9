// Read-side queries: every answer is JSON, every parameter validated, every statement bound.
#include <algorithm>
#include <cmath>
#include <set>
#include <variant>

#include <shaderwatch/result_contract.h>

#include "catalog.h"
#include "detection/analysis.h"
#include "ingest/driver_identity.h"
#include "queries/query_helpers.h"
#include "queries/run_counters.h"
#include "common/clock.h"
#include "common/iso8601.h"
#include "ingest/benchmark_name.h"
#include "queries/queries.h"
#include "storage/reps_blob.h"

using nlohmann::json;

namespace shaderwatch {

namespace {

// Filters appended as fixed SQL fragments; only values are bound.
struct Where {
  std::string sql;
  std::vector<std::variant<std::int64_t, std::string>> args;
  void add(std::string_view frag, std::variant<std::int64_t, std::string> v) {
    sql += sql.empty() ? " WHERE " : " AND ";
    sql += frag;
    args.push_back(std::move(v));
  }
  void add_fixed(std::string_view frag) {  // a fragment with no value to bind (built from constants)
    sql += sql.empty() ? " WHERE " : " AND ";
    sql += frag;
  }
  int bind(sql::Stmt& st, int from = 1) const {
    int i = from;
    for (const auto& a : args) {
      if (std::holds_alternative<std::int64_t>(a)) st.bind(i++, std::get<std::int64_t>(a));
      else st.bind(i++, std::get<std::string>(a));
    }
    return i;
  }
};


}  // namespace

json Queries::run_json(sql::Conn& c, std::int64_t pk) {
  auto& st = c.q(
      "SELECT r.run_key, r.commit_id, r.branch, r.runner, r.job_url, r.started_at, r.received_at,"
      " r.driver_id, r.driver_name, r.driver_info, r.driver_version, r.api_version, r.harness_revision,"
      " r.device_uuid, r.driver_uuid, r.subgroup_size, r.host_name, r.n_results, g.id, g.vendor_id,"
      " g.device_id, g.name, g.device_type,"
      " (SELECT COUNT(*) FROM points p WHERE p.run_id=r.id),"
      " (SELECT COUNT(*) FROM points p WHERE p.run_id=r.id AND p.n_errors>0), r.posted_by,"
      " (SELECT COUNT(*) FROM series s WHERE s.gpu_id=g.id)"
      " FROM runs r JOIN gpus g ON g.id=r.gpu_id WHERE r.id=?");
  st.bind(1, pk);
  if (!st.step()) throw ClientError(404, "no such run");
  return {{"id", st.text(0)},
          {"commit", st.text(1)},
          {"branch", st.text(2)},
          {"runner", st.text(3)},
          {"job_url", st.text(4)},
          {"started_at", st.text(5)},
          {"received_at", st.text(6)},
          {"driver", {{"id", st.text(7)}, {"name", st.text(8)}, {"info", st.text(9)},
                      {"version", st.text(10)}, {"uuid", st.text(14)}}},
          {"api_version", st.text(11)},
          {"harness_revision", st.text(12)},
          {"device_uuid", st.text(13)},
          {"subgroup_size", st.text(15)},
          {"host_name", st.text(16)},
          {"results", st.i64(17)},
          {"gpu", gpu_obj(st.i64(18), st.text(19), st.text(20), st.text(21), st.text(22))},
          {"benchmarks", st.i64(23)},
          {"failing_benchmarks", st.i64(24)},
          // Coverage: a partial run (one size, a filter) is "34 of 348 benchmarks", the GPU's whole set.
          {"gpu_benchmarks", st.i64(26)},
          {"posted_by", st.text(25)}};
}

json Queries::alert_json(sql::Conn& c, std::int64_t id) {
  auto& st = c.q(
      "SELECT a.id, a.series_id, bm.name, g.id, g.vendor_id, g.device_id, g.name, g.device_type,"
      " r.run_key, pr.run_key, r.commit_id, r.driver_version, a.kind, a.severity, a.state,"
      " a.before_ns, a.after_ns, a.delta_pct, a.noise_pct, a.floor_pct, a.score, a.p_value,"
      " a.n_before, a.n_after, a.cause, a.attribution, rb.run_key, a.created_at, a.updated_at,"
      " a.state_by, a.note, r.started_at, r.driver_name, r.driver_info, r.driver_uuid"
      " FROM alerts a JOIN series s ON s.id=a.series_id JOIN benchmarks bm ON bm.id=s.benchmark_id"
      " JOIN gpus g ON g.id=s.gpu_id JOIN runs r ON r.id=a.run_id LEFT JOIN runs pr ON pr.id=a.prev_run_id"
      " JOIN runs rb ON rb.id=a.raised_by WHERE a.id=?");
  st.bind(1, id);
  if (!st.step()) throw ClientError(404, "no alert with id " + std::to_string(id));
  json attribution = json::parse(st.text(25), nullptr, false);
  const NameParts name = split_name(st.text(2));
  json out = {{"id", st.i64(0)},
          {"series_id", st.i64(1)},
          {"benchmark", st.text(2)},
          {"kernel", name.kernel()},   // family/variant: the dashboard groups a kernel's alerts by it
          {"config", name.config},     // size/mode[/devN]
          {"gpu", gpu_obj(st.i64(3), st.text(4), st.text(5), st.text(6), st.text(7))},
          {"run_id", st.text(8)},
          {"started_at", st.text(31)},
          {"prev_run_id", st.null(9) ? json(nullptr) : json(st.text(9))},
          {"commit", st.text(10)},
          {"driver_version", st.text(11)},
          {"driver", DriverIdentity{st.text(32), st.text(11), st.text(33), st.text(34)}.label()},
          {"kind", st.text(12)},
          {"severity", st.i64(13)},
          {"state", st.text(14)},
          {"before_ns", num_or_null(st, 15)},
          {"after_ns", num_or_null(st, 16)},
          {"delta_pct", num_or_null(st, 17)},
          {"noise_pct", num_or_null(st, 18)},
          {"floor_pct", num_or_null(st, 19)},
          {"score", num_or_null(st, 20)},
          {"p_value", num_or_null(st, 21)},
          {"n_before", st.null(22) ? json(nullptr) : json(st.i64(22))},
          {"n_after", st.null(23) ? json(nullptr) : json(st.i64(23))},
          {"cause", st.text(24)},
          {"attribution", attribution},
          {"raised_by_run", st.text(26)},
          {"created_at", st.text(27)},
          {"updated_at", st.text(28)},
          {"state_by", st.null(29) ? json(nullptr) : json(st.text(29))},
          {"note", st.null(30) ? json(nullptr) : json(st.text(30))}};
  // A wrong answer's own words (the first wrong element, the seed), from the alert's first run.
  auto& msg = c.q("SELECT r.error_message FROM results r JOIN alerts a ON a.run_id=r.run_id JOIN series s ON"
                  " s.id=a.series_id AND s.benchmark_id=r.benchmark_id WHERE a.id=? AND r.error_occurred=1"
                  " ORDER BY r.id LIMIT 1");
  msg.bind(1, id);
  out["error_message"] = msg.step() ? json(msg.text(0)) : json(nullptr);
  msg.reset();
  return out;
}

json Queries::gpus(const Params& q) {
  allow_only(q, {});
  auto c = db_.reader();
  auto& st = c->q(
      "SELECT g.id, g.vendor_id, g.device_id, g.name, g.device_type, COUNT(r.id), MIN(r.started_at),"
      " MAX(r.started_at) FROM gpus g LEFT JOIN runs r ON r.gpu_id=g.id GROUP BY g.id ORDER BY g.id");
  json out = json::array();
  while (st.step()) {
    json g = gpu_obj(st.i64(0), st.text(1), st.text(2), st.text(3), st.text(4));
    g["runs"] = st.i64(5);
    g["first_seen"] = st.text(6);
    g["last_seen"] = st.text(7);
    out.push_back(std::move(g));
  }
  return {{"gpus", out}};
}

json Queries::drivers(const Params& q) {
  allow_only(q, {"gpu_id"});
  Where wh;
  if (q.count("gpu_id")) wh.add("gpu_id=?", int_param(q, "gpu_id", 0, 0, INT64_MAX));
  auto c = db_.reader();
  auto& st = c->q("SELECT gpu_id, driver_name, driver_version, driver_info, api_version, COUNT(*),"
                  " MIN(started_at), MAX(started_at) FROM runs" + wh.sql +
                  " GROUP BY gpu_id, driver_name, driver_version, driver_info, api_version"
                  " ORDER BY gpu_id, MIN(started_ms)");
  wh.bind(st);
  json out = json::array();
  while (st.step())
    out.push_back({{"gpu_id", st.i64(0)}, {"driver_name", st.text(1)}, {"driver_version", st.text(2)},
                   {"driver_info", st.text(3)}, {"api_version", st.text(4)}, {"runs", st.i64(5)},
                   {"first_seen", st.text(6)}, {"last_seen", st.text(7)}});
  return {{"drivers", out}};
}

json Queries::benchmarks(const Params& q) {
  allow_only(q, {"family", "name_contains", "limit", "offset"});
  Where wh;
  const auto limit = int_param(q, "limit", 1000, 1, 10000), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  auto c = db_.reader();
  if (auto f = opt(q, "family")) wh.add("family=?", *f);
  if (auto n = opt(q, "name_contains")) wh.add(c->contains_param("name"), *n);
  auto& st = c->q("SELECT id, name, family, variant, config FROM benchmarks" + wh.sql +
                  " ORDER BY name LIMIT ? OFFSET ?");
  const int i = wh.bind(st);
  st.bind(i, limit).bind(i + 1, offset);
  json out = json::array();
  while (st.step())
    out.push_back({{"id", st.i64(0)}, {"name", st.text(1)}, {"family", st.text(2)},
                   {"variant", st.text(3)}, {"config", st.text(4)}});
  return {{"benchmarks", out}, {"limit", limit}, {"offset", offset}};
}

json Queries::runs(const Params& q) {
  allow_only(q, {"gpu_id", "commit", "branch", "runner", "driver_version", "since", "until", "limit", "offset"});
  Where wh;
  if (q.count("gpu_id")) wh.add("gpu_id=?", int_param(q, "gpu_id", 0, 0, INT64_MAX));
  if (auto v = opt(q, "commit")) wh.add("commit_id=?", *v);
  if (auto v = opt(q, "branch")) wh.add("branch=?", *v);
  if (auto v = opt(q, "runner")) wh.add("runner=?", *v);
  if (auto v = opt(q, "driver_version")) wh.add("driver_version=?", *v);
  if (q.count("since")) wh.add("started_ms>=?", time_param(q, "since", 0));
  if (q.count("until")) wh.add("started_ms<?", time_param(q, "until", 0));
  const auto limit = int_param(q, "limit", 100, 1, 1000), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  auto c = db_.reader();
  std::vector<std::int64_t> ids;
  {
    auto& st = c->q("SELECT id FROM runs" + wh.sql + " ORDER BY started_ms DESC, id DESC LIMIT ? OFFSET ?");
    const int i = wh.bind(st);
    st.bind(i, limit).bind(i + 1, offset);
    while (st.step()) ids.push_back(st.i64(0));
  }
  json out = json::array();
  for (auto id : ids) out.push_back(run_json(*c, id));
  return {{"runs", out}, {"limit", limit}, {"offset", offset},
          {"next_offset", static_cast<std::int64_t>(ids.size()) == limit ? json(offset + limit) : json(nullptr)}};
}

json Queries::run(const std::string& key) {
  auto c = db_.reader();
  const auto pk = run_pk(*c, key, "run_id");
  json r = run_json(*c, pk);
  auto& st = c->q("SELECT p.series_id, bm.name, p.value_ns, p.min_ns, p.max_ns, p.n_reps, p.n_errors,"
                  " p.error_message, p.label FROM points p JOIN series s ON s.id=p.series_id"
                  " JOIN benchmarks bm ON bm.id=s.benchmark_id WHERE p.run_id=? ORDER BY bm.name");
  st.bind(1, pk);
  auto counters = run_counters(*c, pk);
  json pts = json::array();
  while (st.step()) {
    json p = {{"series_id", st.i64(0)}, {"benchmark", st.text(1)}, {"value_ns", num_or_null(st, 2)},
              {"min_ns", num_or_null(st, 3)}, {"max_ns", num_or_null(st, 4)},
              {"repetitions", st.i64(5)}, {"errors", st.i64(6)}, {"error_message", st.text(7)},
              {"label", st.text(8)}};
    if (auto it = counters.find(st.text(1)); it != counters.end()) {
      const BenchmarkCounters& k = it->second;
      p["p25_ns"] = number_or_null(k.p25_ns);
      p["p75_ns"] = number_or_null(k.p75_ns);
      p["pct_of_roofline"] = number_or_null(k.pct_of_roofline);
      p["pct_of_copy_peak"] = number_or_null(k.pct_of_copy_peak);
      p["err_bound_ratio"] = number_or_null(k.err_bound_ratio);
      p["outcome"] = outcome_name(k.outcome);
      if (k.outcome == RowStatus::Flake) p["error_message"] = k.message;  // a pass: says how many checks failed first
      counters.erase(it);
    }
    pts.push_back(std::move(p));
  }
  // Benchmarks with rows but no point: the negative control's expected outcome, kernels the device
  // could not run.
  json others = json::array();
  for (const auto& [name, k] : counters)
    others.push_back({{"benchmark", name}, {"outcome", outcome_name(k.outcome)}, {"error_message", k.message}});
  return {{"run", r}, {"points", pts}, {"not_measured", others}};
}

json Queries::run_results(const std::string& key, const Params& q) {
  allow_only(q, {"benchmark", "run_type", "limit", "offset"});
  // Paged: a run may hold 200,000 rows (50 MB as one answer; 8 readers took the server to 5.9 GB).
  const auto limit = int_param(q, "limit", 1000, 1, 10000), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  auto c = db_.reader();
  const auto pk = run_pk(*c, key, "run_id");
  Where wh;
  wh.add("r.run_id=?", pk);
  if (auto v = opt(q, "benchmark")) wh.add("bm.name=?", *v);
  if (auto v = opt(q, "run_type")) {
    if (*v != "iteration" && *v != "aggregate") throw ClientError(400, "must be iteration or aggregate", "run_type");
    wh.add("r.run_type=?", *v);
  }
  auto& st = c->q("SELECT r.idx, bm.name, r.run_type, r.aggregate_name, r.repetition_index, r.repetitions,"
                  " r.threads, r.iterations, r.real_ns, r.cpu_ns, r.time_unit, r.label, r.error_occurred,"
                  " r.error_message, r.counters FROM results r JOIN benchmarks bm ON bm.id=r.benchmark_id" +
                  wh.sql + " ORDER BY r.idx LIMIT ? OFFSET ?");
  const int next = wh.bind(st);
  st.bind(next, limit + 1).bind(next + 1, offset);  // one more than asked: is there a next page?
  json out = json::array();
  bool more = false;
  while (st.step()) {
    if (static_cast<std::int64_t>(out.size()) == limit) {
      more = true;
      break;
    }
    out.push_back({{"index", st.i64(0)}, {"benchmark", st.text(1)}, {"run_type", st.text(2)},
                   {"aggregate_name", st.null(3) ? json(nullptr) : json(st.text(3))},
                   {"repetition_index", st.i64(4)}, {"repetitions", st.i64(5)}, {"threads", st.i64(6)},
                   {"iterations", st.i64(7)}, {"real_ns", num_or_null(st, 8)}, {"cpu_ns", num_or_null(st, 9)},
                   {"time_unit", st.text(10)}, {"label", st.text(11)}, {"error_occurred", st.i64(12) != 0},
                   {"error_message", st.text(13)}, {"outcome", outcome_name(outcome_of(st.i64(12) != 0, st.text(13)))},
                   {"counters", json::parse(st.text(14), nullptr, false)}});
  }
  return {{"run_id", key}, {"results", out}, {"limit", limit}, {"offset", offset},
          {"next_offset", more ? json(offset + limit) : json(nullptr)}};
}

json Queries::series_list(const Params& q) {
  allow_only(q, {"benchmark", "family", "gpu_id", "limit", "offset"});
  Where wh;
  if (auto v = opt(q, "benchmark")) wh.add("bm.name=?", *v);
  if (auto v = opt(q, "family")) wh.add("bm.family=?", *v);
  if (q.count("gpu_id")) wh.add("s.gpu_id=?", int_param(q, "gpu_id", 0, 0, INT64_MAX));
  const auto limit = int_param(q, "limit", 1000, 1, 10000), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  auto c = db_.reader();
  auto& st = c->q("SELECT s.id, bm.name, g.id, g.vendor_id, g.device_id, g.name, g.device_type"
                  " FROM series s JOIN benchmarks bm ON bm.id=s.benchmark_id JOIN gpus g ON g.id=s.gpu_id" +
                  wh.sql + " ORDER BY s.id LIMIT ? OFFSET ?");
  const int i = wh.bind(st);
  st.bind(i, limit).bind(i + 1, offset);
  json out = json::array();
  while (st.step())
    out.push_back({{"id", st.i64(0)}, {"benchmark", st.text(1)},
                   {"gpu", gpu_obj(st.i64(2), st.text(3), st.text(4), st.text(5), st.text(6))}});
  return {{"series", out}, {"limit", limit}, {"offset", offset}};
}

json Queries::series(std::int64_t id, const Params& q) {
  allow_only(q, {"limit", "until"});
  const auto limit = int_param(q, "limit", 1000, 1, 10000);
  const auto until = time_param(q, "until", INT64_MAX);
  auto c = db_.reader();
  json head;
  std::int64_t benchmark_id = 0;
  {
    auto& st = c->q("SELECT bm.name, bm.family, bm.variant, bm.config, g.id, g.vendor_id, g.device_id,"
                    " g.name, g.device_type, bm.id FROM series s JOIN benchmarks bm ON bm.id=s.benchmark_id"
                    " JOIN gpus g ON g.id=s.gpu_id WHERE s.id=?");
    st.bind(1, id);
    if (!st.step()) throw ClientError(404, "no series with id " + std::to_string(id), "id");
    benchmark_id = st.i64(9);
    head = {{"id", id}, {"benchmark", st.text(0)}, {"family", st.text(1)}, {"variant", st.text(2)},
            {"config", st.text(3)},
            {"gpu", gpu_obj(st.i64(4), st.text(5), st.text(6), st.text(7), st.text(8))}};
  }
  json pts = json::array(), changes = json::array();
  {
    auto& st = c->q(
        "SELECT r.run_key, r.started_at, r.commit_id, r.branch, r.runner, r.driver_name, r.driver_version,"
        " r.api_version, r.harness_revision, p.value_ns, p.min_ns, p.max_ns, p.n_reps, p.n_errors,"
        " p.error_message, p.run_id, r.driver_info, r.driver_uuid FROM points p JOIN runs r ON r.id=p.run_id"
        " WHERE p.series_id=? AND p.started_ms<? ORDER BY p.started_ms DESC, p.run_id DESC LIMIT ?");
    st.bind(1, id).bind(2, until).bind(3, limit);
    while (st.step())
      pts.push_back({{"run_id", st.text(0)}, {"started_at", st.text(1)}, {"commit", st.text(2)},
                     {"branch", st.text(3)}, {"runner", st.text(4)}, {"driver_name", st.text(5)},
                     {"driver_version", st.text(6)}, {"api_version", st.text(7)},
                     {"harness_revision", st.text(8)}, {"value_ns", num_or_null(st, 9)},
                     {"min_ns", num_or_null(st, 10)}, {"max_ns", num_or_null(st, 11)},
                     {"repetitions", st.i64(12)}, {"errors", st.i64(13)}, {"error_message", st.text(14)},
                     {"run_pk", st.i64(15)}, {"driver_info", st.text(16)}, {"driver_uuid", st.text(17)},
                     {"driver", DriverIdentity{st.text(5), st.text(6), st.text(16), st.text(17)}.label()}});
  }
  std::reverse(pts.begin(), pts.end());
  // The run's own sample spread (p25-p75), where its rows carry the quartile counters.
  std::vector<std::int64_t> run_pks;
  for (const auto& p : pts) run_pks.push_back(p["run_pk"].get<std::int64_t>());
  const auto quartiles = run_quartiles(*c, run_pks, benchmark_id);
  for (auto& p : pts) {
    const auto [p25, p75] = quartiles.at(p["run_pk"].get<std::int64_t>());
    p.erase("run_pk");
    p["p25_ns"] = number_or_null(p25);
    p["p75_ns"] = number_or_null(p75);
  }
  // Covariate changes: where a run differs from the one before in anything but the commit. A driver is
  // its build: its label (name, version, driver_info) and its UUID.
  static const char* kCov[] = {"driver", "driver_uuid", "api_version", "harness_revision", "runner", "branch"};
  for (std::size_t i = 1; i < pts.size(); ++i)
    for (const char* f : kCov)
      if (pts[i][f] != pts[i - 1][f])
        changes.push_back({{"index", i}, {"run_id", pts[i]["run_id"]}, {"field", f},
                           {"before", pts[i - 1][f]}, {"after", pts[i][f]}});
  json cps = json::array();
  {
    std::vector<std::int64_t> ids;
    auto& st = c->q("SELECT id FROM alerts WHERE series_id=? ORDER BY started_ms, id");
    st.bind(1, id);
    while (st.step()) ids.push_back(st.i64(0));
    for (auto a : ids) cps.push_back(alert_json(*c, a));
  }
  head["points"] = std::move(pts);
  head["covariate_changes"] = std::move(changes);
  head["change_points"] = std::move(cps);
  return head;
}

json Queries::alerts(const Params& q) {
  allow_only(q, {"state", "kind", "gpu_id", "benchmark", "family", "cause", "run_id", "raised_by", "limit", "offset"});
  Where wh;
  if (auto v = opt(q, "state")) {
    // "open": the states that still gate (new, acknowledged).
    if (*v == "open") wh.add_fixed("a.state IN " + open_alert_states_sql());
    else if (!kAlertStates.count(*v))
      throw ClientError(400, "must be open or one of new, acknowledged, expected, fixed, invalid", "state");
    else wh.add("a.state=?", *v);
  }
  if (auto v = opt(q, "kind")) {
    if (!detect::parse_alert_kind(*v)) throw ClientError(400, "unknown alert kind", "kind");
    wh.add("a.kind=?", *v);
  }
  if (q.count("gpu_id")) wh.add("s.gpu_id=?", int_param(q, "gpu_id", 0, 0, INT64_MAX));
  if (auto v = opt(q, "benchmark")) wh.add("bm.name=?", *v);
  if (auto v = opt(q, "family")) wh.add("bm.family=?", *v);
  if (auto v = opt(q, "cause")) wh.add("a.cause=?", *v);
  if (auto v = opt(q, "run_id")) wh.add("a.run_id=(SELECT id FROM runs WHERE run_key=?)", *v);
  if (auto v = opt(q, "raised_by")) wh.add("a.raised_by=(SELECT id FROM runs WHERE run_key=?)", *v);
  const auto limit = int_param(q, "limit", 50, 1, 500), offset = int_param(q, "offset", 0, 0, INT64_MAX);
  const std::string from = " FROM alerts a JOIN series s ON s.id=a.series_id JOIN benchmarks bm ON bm.id=s.benchmark_id";
  auto c = db_.reader();
  std::int64_t total = 0;
  {
    auto& st = c->q("SELECT COUNT(*)" + from + wh.sql);
    wh.bind(st);
    st.step();
    total = st.i64(0);
  }
  std::vector<std::int64_t> ids;
  {
    auto& st = c->q("SELECT a.id" + from + wh.sql + " ORDER BY a.id DESC LIMIT ? OFFSET ?");
    const int i = wh.bind(st);
    st.bind(i, limit).bind(i + 1, offset);
    while (st.step()) ids.push_back(st.i64(0));
  }
  json out = json::array();
  for (auto id : ids) out.push_back(alert_json(*c, id));
  return {{"alerts", out}, {"total", total}, {"limit", limit}, {"offset", offset},
          {"next_offset", offset + limit < total ? json(offset + limit) : json(nullptr)}};
}

json Queries::ingest_answer(std::int64_t run_pk, const std::vector<std::int64_t>& alert_ids) {
  auto c = db_.reader();
  json alerts = json::array();
  for (const auto id : alert_ids) alerts.push_back(alert_json(*c, id));
  return {{"run", run_json(*c, run_pk)}, {"alerts", std::move(alerts)}};
}

json Queries::alert(std::int64_t id) {
  auto c = db_.reader();
  return alert_json(*c, id);
}

namespace {
struct RunPoint {
  double value = NAN;
  std::vector<double> reps;
  int errors = 0;
  std::int64_t series_id = 0;
};
std::map<std::string, RunPoint> run_points(sql::Conn& c, std::int64_t pk) {
  std::map<std::string, RunPoint> m;
  auto& st = c.q("SELECT bm.name, p.value_ns, p.reps, p.n_errors, p.series_id FROM points p"
                 " JOIN series s ON s.id=p.series_id JOIN benchmarks bm ON bm.id=s.benchmark_id"
                 " WHERE p.run_id=?");
  st.bind(1, pk);
  while (st.step())
    m[st.text(0)] = {st.null(1) ? NAN : st.f64(1), unpack_reps(st.blob(2)), static_cast<int>(st.i64(3)),
                     st.i64(4)};
  return m;
}

// Each benchmark's own sample spread in a run, (p75 - p25) / median in percent, from the quartile
// counters shaderwatch-bench puts on its repetition rows (contract); benchmarks without them are absent.
std::map<std::string, double> run_spreads(sql::Conn& c, std::int64_t pk) {
  std::map<std::string, double> m;
  auto& st = c.q("SELECT bm.name, r.counters FROM results r JOIN benchmarks bm ON bm.id=r.benchmark_id"
                 " WHERE r.run_id=? AND r.run_type='iteration' AND r.repetition_index=0 AND r.error_occurred=0");
  st.bind(1, pk);
  while (st.step()) {
    const json counters = json::parse(st.text(1), nullptr, false);
    if (!counters.is_object()) continue;
    const auto number = [&](const char* key) {
      const auto it = counters.find(key);
      return it != counters.end() && it->is_number() ? it->get<double>() : NAN;
    };
    const double median = number(shaderwatch::contract::kMedianCounter), p25 = number(shaderwatch::contract::kP25Counter),
                 p75 = number(shaderwatch::contract::kP75Counter);
    if (median > 0 && p75 >= p25) m[st.text(0)] = 100 * (p75 - p25) / median;
  }
  return m;
}

// A query parameter that is a number in [lo, hi), or `fallback` where it is absent.
double number_param(const Params& q, const char* name, double lo, double hi, double fallback) {
  const auto text = opt(q, name);
  if (!text) return fallback;
  char* end = nullptr;
  const double v = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || !(v >= lo && v < hi))
    throw ClientError(400, "must be a number in [" + json(lo).dump() + ", " + json(hi).dump() + ")", name);
  return v;
}
}  // namespace

json Queries::compare(const Params& q) {
  allow_only(q, {"base", "contender", "alpha", "min_delta_pct", "min_delta_ns", "noise_floor"});
  auto base = opt(q, "base"), cont = opt(q, "contender");
  if (!base) throw ClientError(400, "missing required parameter", "base");
  if (!cont) throw ClientError(400, "missing required parameter", "contender");
  double alpha = 0.05;  // compare.py's default
  if (auto a = opt(q, "alpha")) {
    char* end = nullptr;
    alpha = std::strtod(a->c_str(), &end);
    if (a->empty() || *end != '\0' || !(alpha > 0 && alpha < 1)) throw ClientError(400, "must be in (0, 1)", "alpha");
  }
  // Repetitions from one process share its conditions, so the U test alone calls 0.2% between two
  // processes significant. A difference must also clear a floor, the largest of (LNT's
  // MIN_PERCENTAGE_CHANGE and MIN_VALUE_PRECISION, and its noise): min_delta_pct; min_delta_ns, what two
  // processes resolve at all (H200: kernels under 30 us moved up to 640 ns between identical runs);
  // and with noise_floor=1, the benchmark's own sample spread (p25-p75) in either run, where the rows
  // carry it (a short kernel's level shifts between processes by about its spread).
  analysis::CompareParams params;
  params.alpha = alpha;
  params.min_delta_pct = number_param(q, "min_delta_pct", 0, 1000, params.min_delta_pct);
  params.min_delta_ns = number_param(q, "min_delta_ns", 0, 1e9, params.min_delta_ns);
  const auto noise_text = opt(q, "noise_floor");
  if (noise_text && *noise_text != "0" && *noise_text != "1") throw ClientError(400, "must be 0 or 1", "noise_floor");
  params.noise_floor = !noise_text || *noise_text == "1";
  auto c = db_.reader();
  const auto bpk = run_pk(*c, *base, "base"), cpk = run_pk(*c, *cont, "contender");
  const auto bp = run_points(*c, bpk), cp = run_points(*c, cpk);
  const auto bs = run_spreads(*c, bpk), cs = run_spreads(*c, cpk);
  json rows = json::array(), only_base = json::array(), only_cont = json::array();
  double log_sum = 0;
  int n_geo = 0;
  for (const auto& [name, b] : bp) {
    auto it = cp.find(name);
    if (it == cp.end()) {
      only_base.push_back(name);
      continue;
    }
    const auto& k = it->second;
    json row = {{"benchmark", name}, {"base_ns", std::isnan(b.value) ? json(nullptr) : json(b.value)},
                {"contender_ns", std::isnan(k.value) ? json(nullptr) : json(k.value)},
                {"base_repetitions", b.reps.size()}, {"contender_repetitions", k.reps.size()}};
    const auto side = [](const RunPoint& point, const std::map<std::string, double>& spreads, const std::string& n) {
      analysis::RunSide r{point.value, point.reps, std::nullopt, point.errors > 0};
      if (auto it = spreads.find(n); it != spreads.end()) r.spread_pct = it->second;
      return r;
    };
    const auto result = analysis::compare(side(b, bs, name), side(k, cs, name), params);
    const auto opt_json = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    row["verdict"] = analysis::to_string(result.verdict);
    row["delta_pct"] = opt_json(result.delta_pct);
    row["p_value"] = opt_json(result.p_value);
    if (result.verdict != analysis::CompareVerdict::Error) {
      row["reliable"] = result.reliable;
      if (result.floor_pct) {
        row["spread_pct"] = opt_json(result.spread_pct);
        row["floor_pct"] = *result.floor_pct;
      }
      if (b.value > 0 && k.value > 0) {
        log_sum += std::log(k.value / b.value);
        ++n_geo;
      }
    }
    rows.push_back(std::move(row));
  }
  for (const auto& [name, k] : cp)
    if (!bp.count(name)) only_cont.push_back(name);
  return {{"base", *base}, {"contender", *cont}, {"alpha", alpha}, {"min_delta_pct", params.min_delta_pct},
          {"min_delta_ns", params.min_delta_ns}, {"noise_floor", params.noise_floor}, {"benchmarks", rows},
          {"only_in_base", only_base}, {"only_in_contender", only_cont},
          {"geomean_delta_pct", n_geo ? json(100 * std::expm1(log_sum / n_geo)) : json(nullptr)}};
}

json Queries::verdict(const std::string& key) {
  auto c = db_.reader();
  const auto pk = run_pk(*c, key, "run_id");
  auto& run_st = c->q("SELECT r.started_ms, r.branch, r.merge_base, r.gpu_id, g.device_type FROM runs r"
                       " JOIN gpus g ON g.id=r.gpu_id WHERE r.id=?");
  run_st.bind(1, pk);
  run_st.step();
  const auto ms = run_st.i64(0);
  const std::string branch = run_st.text(1), merge_base = run_st.text(2);
  const auto gpu_id = run_st.i64(3);
  const bool cpu_device = run_st.text(4) == "cpu";
  run_st.reset();
  // The main branch's level this run is judged against: for a main run, its own series up to it; for a
  // run on another branch, main's runs up to its merge base (the latest main run on this GPU at that
  // commit), or main's latest level where the merge base is unknown or was not run here. Main points
  // strictly before (level_ms, level_pk) form it.
  const bool on_main = branch == opts_.main_branch;
  std::int64_t level_ms = ms, level_pk = pk;
  json baseline = nullptr;
  if (!on_main) {
    baseline = {{"branch", opts_.main_branch}, {"merge_base", merge_base.empty() ? json(nullptr) : json(merge_base)},
                {"run_id", nullptr}};
    auto& mb = c->q("SELECT started_ms, run_key FROM runs WHERE gpu_id=? AND commit_id=? AND branch=?"
                    " ORDER BY started_ms DESC, id DESC LIMIT 1");
    mb.bind(1, gpu_id).bind(2, merge_base).bind(3, opts_.main_branch);
    if (!merge_base.empty() && mb.step()) {
      level_ms = mb.i64(0) + 1;  // that run and every main run before it
      level_pk = 0;
      baseline["run_id"] = mb.text(1);
    }
    mb.reset();
  }
  // The evidence, loaded; the judgement is analysis::judge's.
  analysis::RunEvidence evidence;
  evidence.on_main = on_main;
  evidence.timings_gated = !cpu_device || opts_.gate_cpu_timings;
  for (const auto& [name, p] : run_points(*c, pk)) {
    analysis::BenchmarkEvidence& b = evidence.benchmarks.emplace_back();
    b.name = name;
    b.series_id = p.series_id;
    b.value = p.value;
    b.reps = p.reps;
    if (p.errors > 0) {
      b.failed = true;
      auto& st = c->q("SELECT n_errors FROM points WHERE series_id=? AND (started_ms, run_id) < (?, ?) AND on_main=1"
                      " ORDER BY started_ms DESC, run_id DESC LIMIT 1");
      st.bind(1, p.series_id).bind(2, level_ms).bind(3, level_pk);
      b.passed_before = st.step() && st.i64(0) == 0;
      auto& em = c->q("SELECT error_message FROM points WHERE series_id=? AND run_id=?");
      em.bind(1, p.series_id).bind(2, pk);
      if (em.step()) b.error_message = em.text(0);
      continue;
    }
    if (on_main) {
      auto& rs = c->q("SELECT value_ns FROM points WHERE series_id=? AND (started_ms, run_id) <= (?, ?) AND on_main=1"
                      " AND value_ns IS NOT NULL ORDER BY started_ms DESC, run_id DESC LIMIT ?");
      rs.bind(1, p.series_id).bind(2, ms).bind(3, pk).bind(4, static_cast<std::int64_t>(opts_.detect.present_points));
      while (rs.step()) b.recent.push_back(rs.f64(0));
      auto& st = c->q("SELECT id, state, before_ns, after_ns, floor_pct, noise_pct, n_before, started_ms, run_id FROM alerts"
                      " WHERE series_id=? AND kind='regression' AND state IN " + open_alert_states_sql() + " AND (started_ms, run_id) <= (?, ?)");
      st.bind(1, p.series_id).bind(2, ms).bind(3, pk);
      std::vector<std::pair<std::int64_t, std::int64_t>> steps;  // each alert's first run of the new level
      while (st.step()) {
        steps.emplace_back(st.i64(7), st.i64(8));
        analysis::OpenRegression r{st.i64(0), st.text(1) == "acknowledged"};
        if (!st.null(2) && !st.null(3)) r.before = st.f64(2), r.after = st.f64(3);
        r.floor_rel = st.null(4) ? 0 : st.f64(4) / 100;
        r.noise_rel = st.null(5) ? 0 : st.f64(5) / 100;
        r.n_before = st.null(6) ? 0 : static_cast<std::size_t>(st.i64(6));
        b.open.push_back(r);
      }
      st.reset();
      for (std::size_t i = 0; i < b.open.size(); ++i) {
        auto& since = c->q("SELECT value_ns FROM points WHERE series_id=? AND (started_ms, run_id) >= (?, ?) AND"
                           " (started_ms, run_id) <= (?, ?) AND on_main=1 AND value_ns IS NOT NULL"
                           " ORDER BY started_ms DESC, run_id DESC LIMIT ?");
        since.bind(1, p.series_id).bind(2, steps[i].first).bind(3, steps[i].second).bind(4, ms).bind(5, pk)
            .bind(6, static_cast<std::int64_t>(analysis::kLevelRuns));
        while (since.step()) b.open[i].since.push_back(since.f64(0));
      }
    }
    // The level starts at the latest performance change point before the level's bound.
    std::int64_t boundary_ms = INT64_MIN;
    {
      auto& st = c->q("SELECT started_ms FROM alerts WHERE series_id=? AND kind IN"
                      " ('regression','improvement','ambiguous') AND state!='invalid' AND"
                      " (started_ms, run_id) < (?, ?) ORDER BY started_ms DESC, run_id DESC LIMIT 1");
      st.bind(1, p.series_id).bind(2, level_ms).bind(3, level_pk);
      if (st.step()) boundary_ms = st.i64(0);
    }
    // The main runs before the bound, newest first: the level (since that change point, at most kLevelRuns),
    // the history the gate looks for the GPU's lone swings in (across change points) and how long the series
    // is (counted up to the most runs read).
    auto& bs = c->q("SELECT value_ns, reps, started_ms FROM points WHERE series_id=? AND (started_ms, run_id) < (?, ?)"
                    " AND on_main=1 AND value_ns IS NOT NULL ORDER BY started_ms DESC, run_id DESC LIMIT ?");
    bs.bind(1, p.series_id).bind(2, level_ms).bind(3, level_pk)
        .bind(4, static_cast<std::int64_t>(
                     std::max({opts_.detect.noise_window, analysis::kLevelRuns, opts_.gate.swing_runs})));
    while (bs.step()) {
      ++b.history;
      const double value = bs.f64(0);
      if (b.swing_history.size() < opts_.gate.swing_runs) b.swing_history.push_back(value);
      if (bs.i64(2) < boundary_ms || b.level_runs.size() >= analysis::kLevelRuns) continue;
      b.level_runs.push_back(value);
      if (b.level_runs.size() < opts_.detect.min_segment) b.level_reps.push_back(unpack_reps(bs.blob(1)));
    }
    bs.reset();
    std::reverse(b.swing_history.begin(), b.swing_history.end());
  }
  const analysis::RunVerdict v = analysis::judge(evidence, opts_.detect, opts_.gate);
  json correctness = json::array(), regressions = json::array(), known = json::array(), suspects = json::array();
  for (const auto& f : v.correctness)
    correctness.push_back({{"benchmark", f.benchmark->name}, {"series_id", f.benchmark->series_id},
                           {"kind", detect::to_string(f.kind)}, {"error_message", f.benchmark->error_message}});
  for (const auto id : v.regressions) regressions.push_back(alert_json(*c, id));
  for (const auto id : v.acknowledged) known.push_back(alert_json(*c, id));
  json unconfirmed = json::array();
  for (const auto id : v.unconfirmed) unconfirmed.push_back(alert_json(*c, id));
  for (const auto& f : v.suspects)
    suspects.push_back({{"benchmark", f.benchmark->name}, {"series_id", f.benchmark->series_id},
                        {"level_ns", f.suspect.level}, {"value_ns", f.benchmark->value},
                        {"delta_pct", 100 * f.suspect.delta}, {"floor_pct", 100 * f.suspect.floor}, {"z", f.suspect.z}});
  json slowdowns = json::array();
  for (const auto& f : v.slowdowns)
    slowdowns.push_back({{"benchmark", f.benchmark->name}, {"series_id", f.benchmark->series_id},
                         {"against", analysis::to_string(f.slowdown.against)}, {"baseline_runs", f.slowdown.runs},
                         {"baseline_ns", f.slowdown.baseline}, {"value_ns", f.benchmark->value},
                         {"delta_pct", 100 * f.slowdown.delta}, {"floor_pct", 100 * f.slowdown.floor},
                         {"noise_pct", 100 * f.slowdown.noise}});
  const auto& cov = v.coverage;
  const json coverage = {{"first_runs", cov.first_runs}, {"previous_runs", cov.previous_runs}, {"level", cov.level},
                         {"change_points", cov.change_points}, {"not_timed", cov.not_timed},
                         {"timings_gated", evidence.timings_gated}, {"history_min", cov.history_min},
                         {"history_max", cov.history_max}, {"swing_pct", 100 * std::expm1(cov.swing)},
                         {"series_runs", cov.series_runs}, {"single_run_gate", cov.gated},
                         {"line", analysis::coverage_line(cov, opts_.detect, opts_.gate)}};
  // Kernels the device could not run or an expectations entry skipped: neither a pass nor a failure,
  // listed so nobody mistakes them for either.
  json skipped = json::array();
  {
    auto& st = c->q("SELECT bm.name, MIN(r.error_message) FROM results r JOIN benchmarks bm ON bm.id=r.benchmark_id"
                    " WHERE r.run_id=? AND r.error_occurred=1 GROUP BY bm.name ORDER BY bm.name");
    st.bind(1, pk);
    while (st.step()) {
      const std::string message = st.text(1);
      const RowStatus o = outcome_of(true, message);
      if (o != RowStatus::Unsupported && o != RowStatus::Skip) continue;
      const std::string_view prefix = o == RowStatus::Unsupported ? shaderwatch::contract::kUnsupportedPrefix : "";
      skipped.push_back({{"benchmark", st.text(0)}, {"reason", message.substr(prefix.size())}});
    }
  }
  return {{"run_id", key}, {"branch", branch}, {"baseline", baseline}, {"verdict", v.fail ? "fail" : "pass"},
          {"correctness", correctness}, {"regressions", regressions}, {"slowdowns", slowdowns},
          {"acknowledged_regressions", known}, {"unconfirmed_regressions", unconfirmed}, {"suspects", suspects}, {"skipped", skipped}, {"coverage", coverage}};
}

namespace {

// Run-to-run noise of a series (relative: robust sigma of log values) over its last 24 points up to a
// run; 0 with fewer than 6 (then only kMinFlipRel guards the flip).
double series_noise(sql::Conn& c, std::int64_t sid, std::int64_t ms, std::int64_t run_pk) {
  auto& st = c.q("SELECT value_ns FROM points WHERE series_id=? AND (started_ms, run_id) <= (?, ?) AND on_main=1"
                 " AND value_ns IS NOT NULL ORDER BY started_ms DESC, run_id DESC LIMIT 24");
  st.bind(1, sid).bind(2, ms).bind(3, run_pk);
  std::vector<double> logs;
  while (st.step()) logs.push_back(std::log(std::max(st.f64(0), 1e-6)));
  return logs.size() >= 6 ? detect::mad_sigma(logs) : 0.0;
}
}  // namespace

namespace {

// The operation a variant computes (the catalog's KernelSpec::operation): "luminance sum", "tone mapping",
// ...; a name from another catalog version is an operation of its own.
std::string variant_operation(const std::string& family, const std::string& variant) {
  const auto* spec = shaderwatch::find_kernel_or_null(family + "/" + variant);
  return spec ? spec->operation : family + "/" + variant;
}

}  // namespace

json Queries::rankings(const Params& q) {
  allow_only(q, {"commit", "family"});
  auto commit = opt(q, "commit");
  if (!commit) throw ClientError(400, "missing required parameter", "commit");
  auto c = db_.reader();
  // Every run at this commit on each GPU, newest first: a benchmark's figure is its latest at the commit,
  // so a partial run (one size, a filter) adds to the full one rather than hiding it.
  struct G {
    json gpu;
    std::string run;                  // the newest
    std::vector<std::int64_t> runs;   // newest first
  };
  std::vector<G> gs;
  {
    auto& st = c->q("SELECT r.id, r.run_key, g.id, g.vendor_id, g.device_id, g.name, g.device_type FROM runs r"
                    " JOIN gpus g ON g.id=r.gpu_id WHERE r.commit_id=? ORDER BY g.id, r.started_ms DESC, r.id DESC");
    st.bind(1, *commit);
    while (st.step()) {
      if (gs.empty() || gs.back().gpu["id"] != st.i64(2))
        gs.push_back({gpu_obj(st.i64(2), st.text(3), st.text(4), st.text(5), st.text(6)), st.text(1), {}});
      gs.back().runs.push_back(st.i64(0));
    }
  }
  if (gs.empty()) throw ClientError(404, "no runs at commit '" + *commit + "'", "commit");
  // (family, config) -> gpu index -> variant -> its value and series noise (relative)
  std::map<std::pair<std::string, std::string>, std::map<std::size_t, analysis::GpuVariants>> groups;
  std::vector<std::map<std::string, BenchmarkCounters>> counters(gs.size());
  for (std::size_t gi = 0; gi < gs.size(); ++gi) {
    for (const std::int64_t run_pk : gs[gi].runs) {
      std::map<std::string, BenchmarkCounters> run = run_counters(*c, run_pk);
      auto& st = c->q("SELECT bm.family, bm.variant, bm.config, p.value_ns, p.series_id, p.started_ms FROM points p"
                      " JOIN series s ON s.id=p.series_id JOIN benchmarks bm ON bm.id=s.benchmark_id WHERE p.run_id=?"
                      " AND p.value_ns IS NOT NULL");
      st.bind(1, run_pk);
      std::vector<std::tuple<std::string, std::string, std::string, double, std::int64_t, std::int64_t>> rows;
      while (st.step()) {
        if (auto f = opt(q, "family"); f && *f != st.text(0)) continue;
        rows.emplace_back(st.text(0), st.text(1), st.text(2), st.f64(3), st.i64(4), st.i64(5));
      }
      // The noise: the series' run-to-run spread, or with little history the run's own sample spread
      // (p25-p75 as a standard deviation) where that is larger.
      for (const auto& [family, variant, config, value, sid, ms] : rows) {
        auto& slot = groups[{family, config}][gi];
        if (slot.count(variant)) continue;  // a newer run at this commit gave it
        const std::string name = family + "/" + variant + "/" + config;
        const auto k = run.find(name);
        double noise = series_noise(*c, sid, ms, run_pk);
        if (k != run.end() && std::isfinite(k->second.p75_ns - k->second.p25_ns) && value > 0)
          noise = std::max(noise, (k->second.p75_ns - k->second.p25_ns) / value / analysis::kIqrSigmas);
        slot[variant] = {value, noise};
        if (k != run.end()) counters[gi].emplace(name, k->second);
      }
    }
  }
  json out = json::array();
  for (const auto& [key, per_gpu] : groups) {
    json by_gpu = json::array(), flips = json::array(), gpu_order = json::array();
    for (const auto& [gi, vars] : per_gpu) {
      std::vector<std::pair<double, std::string>> r;
      for (const auto& [v, t] : vars) r.emplace_back(t.value, v);
      std::sort(r.begin(), r.end());
      json list = json::array();
      for (std::size_t i = 0; i < r.size(); ++i) {
        const auto k = counters[gi].find(key.first + "/" + r[i].second + "/" + key.second);
        const bool known = k != counters[gi].end();
        list.push_back({{"rank", i + 1}, {"variant", r[i].second}, {"value_ns", r[i].first},
                        {"noise_rel", number_or_null(vars.at(r[i].second).noise)},
                        {"operation", variant_operation(key.first, r[i].second)},
                        {"pct_of_roofline", known ? number_or_null(k->second.pct_of_roofline) : json(nullptr)},
                        {"pct_of_copy_peak", known ? number_or_null(k->second.pct_of_copy_peak) : json(nullptr)}});
      }
      by_gpu.push_back({{"gpu", gs[gi].gpu}, {"run_id", gs[gi].run}, {"ranking", list}});
    }
    // Flips only between variants of one operation: a tone mapper is not ranked against a DoF tile pass.
    std::map<std::string, std::map<std::size_t, analysis::GpuVariants>> by_operation;
    for (const auto& [gi, vars] : per_gpu)
      for (const auto& [v, t] : vars) by_operation[variant_operation(key.first, v)][gi][v] = t;
    for (const auto& [operation, same_operation] : by_operation)
      for (const auto& f : analysis::flips(same_operation))
        flips.push_back({{"operation", operation}, {"gpu_a", gs[f.gpu_a].gpu["name"]}, {"gpu_b", gs[f.gpu_b].gpu["name"]},
                         {"faster_on_a", f.faster_on_a}, {"faster_on_b", f.faster_on_b},
                         {"gap_on_a_pct", 100 * f.gap_on_a_rel}, {"gap_on_b_pct", 100 * f.gap_on_b_rel}});
    // Per variant, the GPUs fastest first (where an older GPU beats a newer one shows here), and the fastest
    // named only where its lead is beyond both series' noise (analysis::clear_gap), else a tie.
    std::map<std::string, std::vector<std::tuple<double, std::string, double>>> per_var;
    for (const auto& [gi, vars] : per_gpu)
      for (const auto& [v, t] : vars) per_var[v].emplace_back(t.value, gs[gi].gpu["name"].get<std::string>(), t.noise);
    for (auto& [v, list] : per_var) {
      std::sort(list.begin(), list.end());
      json names = json::array();
      for (auto& [val, n, noise] : list) names.push_back({{"gpu", n}, {"value_ns", val}});
      json fastest = nullptr;
      if (list.size() >= 2) {
        const auto& [v0, n0, e0] = list[0];
        const auto& [v1, n1, e1] = list[1];
        if (analysis::clear_gap(v0, v1, e0, e1)) fastest = n0;
      }
      gpu_order.push_back({{"variant", v}, {"fastest_first", names}, {"fastest", fastest},
                           {"tie", list.size() >= 2 && fastest.is_null()}});
    }
    out.push_back({{"family", key.first}, {"config", key.second}, {"by_gpu", by_gpu},
                   {"flips", flips}, {"gpu_order", gpu_order}});
  }
  return {{"commit", *commit}, {"groups", out}};
}

}  // namespace shaderwatch
