// Attribution of a step: the driver, the commit, both, the machine, or neither, from what changed at the
// boundary and whether sibling series (the same benchmark on other GPUs, other benchmarks on this GPU)
// stepped with it. Pure: the store loads the evidence (detection/run_detector.cpp).
#pragma once

#include <string>
#include <vector>

#include "detection/alert_kinds.h"
#include "detection/detect.h"

namespace shaderwatch::detect {

// Relative step between two stretches of a sibling series (medians, in log space), and whether
// it is a real step in the same direction as own_delta_rel and at least half its size.
struct SiblingStep {
  bool present = false;  // enough points on both sides to judge
  bool stepped = false;
  double delta_rel = 0;
  double score = 0;
};
SiblingStep sibling_step(const std::vector<double>& before, const std::vector<double>& after,
                         double own_delta_rel, const Params& p = {});


struct SiblingEvidence {
  std::string name;  // GPU name or benchmark name
  SiblingStep step;
};

// What ran either side of the boundary, where the runs said: the kernel's SPIR-V hash and input, and the
// statistics the driver reported for its compilation (the differing ones as "before"/"after" texts).
struct CompiledEvidence {
  bool spirv_known = false;  // both sides name their SPIR-V
  std::string spirv_before, spirv_after, input_before, input_after;
  bool statistics_known = false;  // both sides carry the driver's statistics
  std::string statistics_before, statistics_after;  // empty where every statistic is the same
  bool spirv_changed() const { return spirv_known && spirv_before != spirv_after; }
  bool input_changed() const { return spirv_known && input_before != input_after; }
  bool statistics_changed() const { return statistics_known && !statistics_before.empty(); }
};

struct AttributionInput {
  bool driver_changed = false;
  bool commit_changed = false;
  bool runner_changed = false;
  std::string driver_before, driver_after, commit_before, commit_after, runner_before,
      runner_after;
  // Same benchmark on other GPUs, split where the commit after the boundary first appears.
  std::vector<SiblingEvidence> gpu_siblings;
  // Other benchmarks on the same GPU, split at the same run.
  std::vector<SiblingEvidence> kernel_siblings;
  // The change is in the run-to-run noise, not the level: siblings "changed their noise", not "stepped".
  bool noise = false;
  CompiledEvidence compiled;
};

// What the compiled evidence decided: the kernel's code, its input, the driver's compiler (same SPIR-V,
// other compiled statistics), the driver's runtime (same SPIR-V and statistics), the driver (same SPIR-V, no
// statistics to tell which), the machine (nothing compiled changed, the runner did); None where it decided
// nothing and the siblings did.
enum class EvidenceClass { None, Code, Input, DriverCompiler, DriverRuntime, Driver, Machine };
const char* to_string(EvidenceClass c);

struct Attribution {
  Cause cause = Cause::Neither;
  EvidenceClass evidence_class = EvidenceClass::None;
  std::string summary;                // one sentence
  std::vector<std::string> evidence;  // the facts the verdict rests on
  int gpu_siblings_stepped = 0, gpu_siblings_checked = 0;
  int kernel_siblings_stepped = 0, kernel_siblings_checked = 0;
};
Attribution attribute(const AttributionInput& in);

}  // namespace shaderwatch::detect
