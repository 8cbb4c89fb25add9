// An alert's attribution as detection writes it at ingest and its readers read it back, typed. It is stored as one
// JSON document (the API passes it on as stored); that document is made and read in alert_attribution.cpp alone.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shaderwatch {

// A sibling series weighed: the same benchmark on another GPU (`name` a GPU) or another benchmark of the run.
struct SiblingDetail {
  std::string name;
  bool stepped = false;
  double delta_pct = 0;
};
struct SiblingSummary {
  int checked = 0, stepped = 0;
  std::vector<SiblingDetail> detail;
};

// What ran either side of the boundary (detect::CompiledEvidence, as stored): before and after where they changed.
struct CompiledChange {
  std::string spirv_before, spirv_after;
  bool statistics_recorded = false;
  std::optional<std::pair<std::string, std::string>> statistics, input;
};

// What the attribution weighed (every alert's but a first run's failure, which has nothing to weigh).
struct AttributionFindings {
  std::optional<std::string> evidence_class;  // detect::EvidenceClass's word; none where it decided nothing
  std::vector<std::string> evidence;
  CompiledChange compiled;
  bool driver_changed = false, commit_changed = false, runner_changed = false;
  std::string driver_before, driver_after, commit_before, commit_after;
  SiblingSummary gpu_siblings, kernel_siblings;
};

// A drift: its rate and since which run.
struct TrendMark {
  double rate_pct_per_run = 0;
  std::string since_run;
  std::size_t runs = 0;
};
// A regression the single-run gate raised: the slowdown it failed, against what, past which floor. Its presence is
// how the verdict knows the gate confirmed the alert.
struct GateMark {
  std::string run, against;
  std::size_t runs = 0;
  double baseline_ns = 0, value_ns = 0, delta_pct = 0, floor_pct = 0;
};
// A change in the run-to-run noise.
struct NoiseMark {
  double ratio = 1, before_pct = 0, after_pct = 0;
  std::string since_run;
};

struct AlertAttribution {
  std::string cause = "neither";  // detect::Cause's word
  std::string summary;            // one sentence, the marks' words before the findings'
  std::optional<AttributionFindings> findings;
  std::optional<TrendMark> trend;
  std::optional<GateMark> gate;
  std::optional<NoiseMark> noise;
};

// The stored document.
std::string stored_text(const AlertAttribution& a);
// A stored document read back: whatever detection wrote it as, what it holds of the above (the API passes the
// document itself on whole). nullopt where it does not parse as an object, or a field is of another type.
std::optional<AlertAttribution> read_attribution(std::string_view stored);

}  // namespace shaderwatch
