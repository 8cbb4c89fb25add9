#include "storage/run_points.h"

#include "storage/result_sets.h"

namespace shaderwatch {

std::map<std::string, RunPoint> run_points(sql::Conn& c, SeriesNames& names, std::int64_t pk, bool with_reps) {
  auto reps = with_reps ? point_repetition_times(c, pk) : std::map<std::int64_t, std::vector<double>>{};
  std::vector<RunPoint> points;
  std::vector<std::int64_t> series;
  auto& st = c.q("SELECT value_ns, n_errors, series_id, spirv, spread FROM points WHERE run_id=?");
  st.bind(1, pk);
  while (st.step()) {
    series.push_back(st.i64(2));
    points.push_back({st.null(0) ? NAN : st.f64(0), std::move(reps[st.i64(2)]), static_cast<int>(st.i64(1)), st.i64(2),
                      st.f64(4), st.text(3)});
  }
  st.reset();
  const auto named = names.of_run(c, pk, series);
  std::map<std::string, RunPoint> m;
  for (std::size_t i = 0; i < points.size(); ++i) m.emplace(named[i], std::move(points[i]));
  return m;
}

}  // namespace shaderwatch
