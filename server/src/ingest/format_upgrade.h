// Older result documents brought up to the current format (contract::kFormatVersion), one function per version,
// as LLVM LNT's upgrade_and_normalize_report: the parser reads what the current format says and leaves the
// rest to these, so what an older harness wrote differently is known in this one place.
#pragma once

#include <nlohmann/json.hpp>

#include "ingest/ingest_parse.h"

namespace shaderwatch {

// Brings `p`, parsed from a document of `p.format_version`, up to contract::kCurrentFormatVersion; `context` is the
// document's context. Throws ClientError naming a field an upgrade cannot read.
void upgrade_to_current(const nlohmann::json& context, Parsed& p);

}  // namespace shaderwatch
