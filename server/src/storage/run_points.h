// A run's points as stored: each benchmark's value, repetitions and errors, and its SPIR-V hash. What the verdict's
// evidence (detection/verdict_evidence.cpp) and the compare answer (queries/queries_compare.cpp) read of a run.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "storage/series_names.h"
#include "storage/sql.h"

namespace shaderwatch {

// A benchmark's point in one run: its value (median of repetitions, ns; NaN where none), repetitions, errors.
struct RunPoint {
  double value = NAN;
  std::vector<double> reps;
  int errors = 0;
  std::int64_t series_id = 0;
  double spread = 0;  // its repetitions' spread (stats::repetition_spread), kept with the point
  std::string spirv;  // the kernel's SPIR-V hash, as the point stored it (empty where the run named none)
};
// Every benchmark's point in the committed run `run_pk`, by benchmark name (from `names`); its repetitions read from
// the run's packs only `with_reps`.
std::map<std::string, RunPoint> run_points(sql::Conn& c, SeriesNames& names, std::int64_t run_pk, bool with_reps = true);

}  // namespace shaderwatch
