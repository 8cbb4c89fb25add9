#include "storage/run_points.h"

#include "storage/result_sets.h"

namespace shaderwatch {

std::map<std::string, RunPoint> run_points(sql::Conn& c, std::int64_t pk, bool with_reps) {
  std::map<std::string, RunPoint> m;
  auto reps = with_reps ? point_repetition_times(c, pk) : std::map<std::int64_t, std::vector<double>>{};
  auto& st = c.q("SELECT bm.name, p.value_ns, p.n_errors, p.series_id, p.spirv, p.spread FROM points p"
                 " JOIN series s ON s.id=p.series_id JOIN benchmarks bm ON bm.id=s.benchmark_id"
                 " WHERE p.run_id=?");
  st.bind(1, pk);
  while (st.step())
    m[st.text(0)] = {st.null(1) ? NAN : st.f64(1), std::move(reps[st.i64(3)]), static_cast<int>(st.i64(2)), st.i64(3),
                     st.f64(5), st.text(4)};
  return m;
}

}  // namespace shaderwatch
