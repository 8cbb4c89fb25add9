#include "ingest/format_upgrade.h"

#include <stdexcept>
#include <string>

#include <shaderwatch/result_contract.h>

#include "common/client_error.h"
#include "common/driver_identity.h"

namespace shaderwatch {

namespace {

using nlohmann::json;

std::string context_text(const json& context, const char* name) {
  const auto it = context.find(contract::context_key(name));
  return it != context.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// 1 -> 2. A row without its status field: read from its error message, a pass whose check was retried being a
// flake. The driver version: the vendor's spelling from the raw driverVersion (an older harness wrote NVIDIA's
// 580.159.04 as 580.159.4.0). The rows keep status_given false, so a run posted again keeps its content hash.
void upgrade_from_1(const json& context, Parsed& p) {
  for (Row& r : p.rows) {
    if (r.status_given) continue;
    r.status = contract::row_status_of_message(r.error, r.error_message);
    if (r.status == contract::RowStatus::Pass && r.check_retries > 0) r.status = contract::RowStatus::Flake;
  }
  try {
    p.driver_version = spelled_driver_version(context_text(context, contract::kVendorId),
                                              context_text(context, contract::kDriverId),
                                              context_text(context, contract::kDriverVersionRaw), p.driver_version);
  } catch (const std::invalid_argument& e) {
    throw ClientError(400, e.what(), "benchmark.context");
  }
}

// 2 -> 3. A measured row whose kernel has no compiled entry: its SPIR-V hash from its label ("spirv:<hash> stop:...").
// Rows keep no stop reason (the label's is for people) and kernels no operation: the rankings name those of
// the catalog of format 2 (format2_operations.h).
void upgrade_from_2(const json&, Parsed& p) {
  for (Row& r : p.rows)
    if (!r.error && r.spirv.empty()) r.spirv = std::string(contract::spirv_of_label(r.label));
}

// 3 -> 4. Kernels keep no limit (CompiledKernel::limit empty): what bounds their time is not known, and readers
// show their % of roofline as before.
void upgrade_from_3(const json&, Parsed&) {}

}  // namespace

void upgrade_to_current(const json& context, Parsed& p) {
  using Upgrade = void (*)(const json&, Parsed&);
  // kUpgrades[v - 1] brings version v to v + 1.
  static constexpr Upgrade kUpgrades[] = {upgrade_from_1, upgrade_from_2, upgrade_from_3};
  static_assert(std::size(kUpgrades) == contract::kCurrentFormatVersion - 1, "one upgrade per older format version");
  for (int v = p.format_version; v < contract::kCurrentFormatVersion; ++v) kUpgrades[v - 1](context, p);
  p.format_version = contract::kCurrentFormatVersion;
}

}  // namespace shaderwatch
