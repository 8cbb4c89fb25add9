// GET /api/v1/series/{id} as a value: one benchmark on one GPU, run by run, with what changed between runs
// and its change points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "queries/alert_answer.h"
#include "queries/answer_common.h"

namespace shaderwatch {

struct SeriesPoint {
  std::string run_id, started_at, commit, branch, runner, driver_name, driver_version, api_version,
      harness_revision;
  std::optional<double> value_ns, min_ns, max_ns;
  std::int64_t repetitions = 0, errors = 0;
  std::string error_message, driver_info, driver_uuid;
  std::string driver;  // DriverIdentity's label: a driver is its build
  double p25_ns = 0, p75_ns = 0;  // the run's own sample spread; NaN where its rows carry no quartiles
  // What ran: the kernel's SPIR-V hash (from its label where the run has no compiled section), its input, and
  // the driver's compilation of it (a key of Series::compiled; 0 where the run did not say).
  std::string spirv, input;
  std::int64_t compiled_id = 0;
};


// Where a run differs from the one before in anything but the commit.
struct CovariateChange {
  std::size_t index = 0;  // of the point
  std::string run_id, field, before, after;
};

struct Series {
  std::int64_t id = 0;
  std::string benchmark, family, variant, config;
  GpuRef gpu;
  std::vector<SeriesPoint> points;  // oldest first
  std::map<std::int64_t, Compilation> compiled;  // the points' compilations
  std::vector<CovariateChange> covariate_changes;
  std::vector<Alert> change_points;
};

}  // namespace shaderwatch
