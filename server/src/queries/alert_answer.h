// An alert as the API shows it: GET /api/v1/alerts/{id}, each entry of /alerts, a series' change points,
// the verdict's regression lists and the alerts a posted run raised.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detection/alert_attribution.h"
#include "queries/answer_common.h"

namespace shaderwatch {

struct Alert {
  std::int64_t id = 0, series_id = 0;
  std::string benchmark;
  std::string kernel, config;  // family/variant and size/mode[/devN]: the dashboard groups a kernel's alerts
  GpuRef gpu;
  std::string run_id, started_at;  // the first run of the new level
  std::optional<std::string> prev_run_id;
  std::string commit, driver_version;
  std::string driver;  // DriverIdentity's label
  std::string kind;    // as stored (detection/alert_kinds.h spells them)
  std::int64_t severity = 0;
  std::string state;
  std::optional<double> before_ns, after_ns, delta_pct, noise_pct, floor_pct, score, p_value;
  std::optional<std::int64_t> n_before, n_after;
  std::string cause;
  // The attribution detection wrote (detection/alert_attribution.h): its document as stored, which the API passes
  // on whole (render/), and what readers read of it (its summary and marks; none where it does not parse).
  std::string attribution_document;
  std::optional<AlertAttribution> attribution;
  std::string raised_by_run, created_at, updated_at;
  std::optional<std::string> state_by, note;
  std::optional<std::string> error_message;  // a wrong answer's own words, from the alert's first run
};

// GET /api/v1/alerts: one page, newest first.
struct AlertPage {
  std::vector<Alert> alerts;
  std::int64_t total = 0, limit = 0, offset = 0;
  std::optional<std::int64_t> next_offset;
};

}  // namespace shaderwatch
