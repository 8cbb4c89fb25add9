#include "queries/run_loader.h"

#include "common/client_error.h"

namespace shaderwatch {

RunSummary load_run_summary(sql::Conn& c, std::int64_t pk) {
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
  RunSummary r;
  r.id = st.text(0);
  r.commit = st.text(1);
  r.branch = st.text(2);
  r.runner = st.text(3);
  r.job_url = st.text(4);
  r.started_at = st.text(5);
  r.received_at = st.text(6);
  r.driver = {st.text(7), st.text(8), st.text(9), st.text(10), st.text(14)};
  r.api_version = st.text(11);
  r.harness_revision = st.text(12);
  r.device_uuid = st.text(13);
  r.subgroup_size = st.text(15);
  r.host_name = st.text(16);
  r.results = st.i64(17);
  r.gpu = {st.i64(18), st.text(19), st.text(20), st.text(21), st.text(22)};
  r.benchmarks = st.i64(23);
  r.failing_benchmarks = st.i64(24);
  r.gpu_benchmarks = st.i64(26);
  r.posted_by = st.text(25);
  return r;
}

}  // namespace shaderwatch
