#include "detection/attribution.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "common/statistics.h"

namespace shaderwatch::detect {

SiblingStep sibling_step(const std::vector<double>& before, const std::vector<double>& after,
                         double own_delta_rel, const Params& p) {
  SiblingStep s;
  constexpr std::size_t kMinSide = 3;
  if (before.size() < kMinSide || after.size() < kMinSide) return s;
  s.present = true;
  std::vector<double> lb, la;
  for (double v : before) lb.push_back(std::log(std::max(v, 1e-6)));
  for (double v : after) la.push_back(std::log(std::max(v, 1e-6)));
  const double mb = stats::median(lb), ma = stats::median(la);
  std::vector<double> resid;
  for (double v : lb) resid.push_back(v - mb);
  for (double v : la) resid.push_back(v - ma);
  const double sigma = std::max(stats::kMinSigma, stats::mad_sigma(resid));
  const double d = ma - mb;
  s.delta_rel = std::expm1(d);
  s.score = std::fabs(d) / (sigma * stats::kMedianSe *
                            std::sqrt(1.0 / static_cast<double>(lb.size()) +
                                      1.0 / static_cast<double>(la.size())));
  // Same direction, at least half the size (and above the global floor), clearly not noise.
  s.stepped = (d > 0) == (own_delta_rel > 0) &&
              std::fabs(s.delta_rel) >= std::max(p.min_rel_effect, 0.5 * std::fabs(own_delta_rel)) &&
              s.score >= 3.0;
  return s;
}

namespace {

// The summaries above tell of a step; for a change in noise the same reasoning holds with these words.
std::string noise_wording(std::string summary) {
  static const std::pair<const char*, const char*> kWords[] = {
      {"the same step shows", "the same noise change shows"}, {"the step shows", "the noise change shows"},
      {"stepped together", "changed their noise together"},   {"stepped at", "changed their noise at"},
      {"stepped,", "changed their noise,"},                    {"did not step", "did not change their noise"}};
  for (const auto& [from, to] : kWords)
    for (auto at = summary.find(from); at != std::string::npos; at = summary.find(from, at + std::strlen(to)))
      summary.replace(at, std::strlen(from), to);
  return summary;
}

// The compiled evidence, where it decides (the first rule that holds), with its facts; false where it does not.
//   SPIR-V changed                                        -> the code (a commit)
//   same SPIR-V, input changed                            -> the input (a commit)
//   same SPIR-V, driver changed, statistics changed       -> the driver's compiler
//   same SPIR-V, driver changed, same statistics          -> the driver's runtime (unless the runner changed too)
//   same SPIR-V, driver changed, no statistics            -> the driver (compiler or runtime: unknown)
//   same SPIR-V and statistics, same driver, runner changed -> the machine
bool decide_by_compiled(const AttributionInput& in, Attribution& a) {
  const CompiledEvidence& c = in.compiled;
  if (!c.spirv_known) {
    a.evidence.push_back("SPIR-V: not recorded on both sides");
    return false;
  }
  a.evidence.push_back(c.spirv_changed() ? "SPIR-V changed: " + c.spirv_before + " -> " + c.spirv_after
                                         : "SPIR-V unchanged: " + c.spirv_after);
  if (c.input_changed()) a.evidence.push_back("input changed: " + c.input_before + " -> " + c.input_after);
  if (!c.statistics_known)
    a.evidence.push_back("compiled statistics: not recorded on both sides");
  else if (c.statistics_changed())
    a.evidence.push_back("compiled statistics changed: " + c.statistics_before + " -> " + c.statistics_after);
  else
    a.evidence.push_back("compiled statistics unchanged");
  if (c.spirv_changed()) {
    a.cause = Cause::Commit;
    a.evidence_class = EvidenceClass::Code;
    a.summary = "the kernel's SPIR-V changed at the boundary: the code";
    if (in.driver_changed) a.summary += " (the driver changed too)";
    return true;
  }
  if (c.input_changed()) {
    a.cause = Cause::Commit;
    a.evidence_class = EvidenceClass::Input;
    a.summary = "the same SPIR-V ran on another input (" + c.input_before + " -> " + c.input_after + "): the test's input";
    return true;
  }
  if (in.driver_changed && c.statistics_changed()) {
    a.cause = Cause::Driver;
    a.evidence_class = EvidenceClass::DriverCompiler;
    a.summary = "the same SPIR-V, compiled differently by the new driver: the driver's compiler";
    return true;
  }
  if (in.driver_changed && c.statistics_known && !in.runner_changed) {
    a.cause = Cause::Driver;
    a.evidence_class = EvidenceClass::DriverRuntime;
    a.summary = "the same SPIR-V, compiled the same, under a new driver: the driver's runtime";
    return true;
  }
  if (in.driver_changed && !c.statistics_known && !in.runner_changed) {
    a.cause = Cause::Driver;
    a.evidence_class = EvidenceClass::Driver;
    a.summary = "the same SPIR-V under a new driver: the driver (no compiled statistics to tell compiler from runtime)";
    return true;
  }
  if (!in.driver_changed && in.runner_changed && !c.statistics_changed()) {
    a.cause = Cause::Machine;
    a.evidence_class = EvidenceClass::Machine;
    a.summary = "nothing compiled changed (same SPIR-V, same driver) and the runner did: the machine";
    return true;
  }
  return false;
}

}  // namespace

const char* to_string(EvidenceClass c) {
  switch (c) {
    case EvidenceClass::Code: return "code";
    case EvidenceClass::Input: return "input";
    case EvidenceClass::DriverCompiler: return "driver compiler";
    case EvidenceClass::DriverRuntime: return "driver runtime";
    case EvidenceClass::Driver: return "driver";
    case EvidenceClass::Machine: return "machine";
    case EvidenceClass::None: break;
  }
  return "";
}

Attribution attribute(const AttributionInput& in) {
  Attribution a;
  // What was compiled decides first, where both sides recorded it (its facts lead the evidence); the siblings
  // are the fallback, and are listed either way.
  const bool decided = decide_by_compiled(in, a);
  for (const auto& s : in.gpu_siblings) {
    if (!s.step.present) continue;
    ++a.gpu_siblings_checked;
    if (s.step.stepped) ++a.gpu_siblings_stepped;
  }
  for (const auto& s : in.kernel_siblings) {
    if (!s.step.present) continue;
    ++a.kernel_siblings_checked;
    if (s.step.stepped) ++a.kernel_siblings_stepped;
  }
  if (in.driver_changed)
    a.evidence.push_back("driver changed: " + in.driver_before + " -> " + in.driver_after);
  else
    a.evidence.push_back("driver unchanged: " + in.driver_after);
  if (in.commit_changed)
    a.evidence.push_back("commit changed: " + in.commit_before + " -> " + in.commit_after);
  else
    a.evidence.push_back("commit unchanged: " + in.commit_after);
  if (in.runner_changed)
    a.evidence.push_back("runner changed: " + in.runner_before + " -> " + in.runner_after);
  const std::string same_way = in.noise ? " changed their noise the same way" : " stepped the same way";
  a.evidence.push_back("same benchmark on other GPUs at commit " + in.commit_after + ": " +
                       std::to_string(a.gpu_siblings_stepped) + " of " +
                       std::to_string(a.gpu_siblings_checked) + same_way);
  a.evidence.push_back("other benchmarks on this GPU at this run: " +
                       std::to_string(a.kernel_siblings_stepped) + " of " +
                       std::to_string(a.kernel_siblings_checked) + same_way);

  if (decided) {
    if (in.noise) a.summary = noise_wording(a.summary);
    return a;
  }

  // Every piece of evidence, every time. The same SPIR-V runs on every GPU, so a code change shows on
  // the other GPUs at the same commit (code_sign) and, where they were checked and none stepped, the
  // code is cleared (code_cleared). The driver and the machine are shared by every kernel on this GPU:
  // most of them stepping together (gpu_wide) points at one of those.
  const bool code_sign = a.gpu_siblings_checked > 0 && 2 * a.gpu_siblings_stepped >= a.gpu_siblings_checked &&
                         a.gpu_siblings_stepped > 0;
  const bool code_cleared = a.gpu_siblings_checked > 0 && a.gpu_siblings_stepped == 0;
  const bool gpu_wide = a.kernel_siblings_checked > 0 && 2 * a.kernel_siblings_stepped >= a.kernel_siblings_checked &&
                        a.kernel_siblings_stepped > 0;

  if (in.runner_changed && !code_sign && (gpu_wide || (!in.driver_changed && !in.commit_changed))) {
    a.cause = Cause::Machine;
    a.summary = gpu_wide ? "the runner changed and most kernels on this GPU stepped together, other GPUs did not: "
                           "the machine"
                         : "neither commit nor driver changed; the runner did: the machine";
    if (in.driver_changed) a.summary += " (the driver changed too)";
  } else if (!in.driver_changed && !in.commit_changed) {
    a.cause = Cause::Neither;
    a.summary = "neither commit, driver nor runner changed: noise or an unrecorded change of the machine";
  } else if (in.driver_changed && !in.commit_changed) {
    a.cause = Cause::Driver;
    a.summary = "only the driver changed at the boundary";
  } else if (!in.driver_changed && in.commit_changed) {
    a.cause = Cause::Commit;
    a.summary = code_sign      ? "the commit changed and the same step shows on other GPUs: the code"
                : gpu_wide     ? "only the commit changed; most kernels on this GPU stepped, other GPUs did not"
                : code_cleared ? "only the commit changed; other GPUs at that commit did not step"
                               : "only the commit changed at the boundary";
  } else if (code_sign && !gpu_wide) {
    a.cause = Cause::Commit;
    a.summary = "commit and driver changed; the step shows on other GPUs at the same commit: the code";
  } else if (!code_sign && (gpu_wide || code_cleared)) {
    a.cause = Cause::Driver;
    a.summary = gpu_wide ? "commit and driver changed; most kernels on this GPU stepped at the driver update and "
                           "other GPUs did not: the driver"
                         : "commit and driver changed; the same code runs unchanged on other GPUs at that commit: "
                           "the driver";
  } else {
    a.cause = Cause::Both;
    a.summary = code_sign ? "commit and driver changed; siblings point at both"
                          : "commit and driver changed; no sibling evidence to tell them apart";
  }
  if (in.noise) a.summary = noise_wording(a.summary);
  return a;
}


}  // namespace shaderwatch::detect
