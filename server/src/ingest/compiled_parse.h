// The ingest adapter for a document's section of what was compiled (contract::kCompiledSection): each
// kernel's SPIR-V hash, input and the statistics its driver reported, every field validated.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace shaderwatch {

// One kernel's entry as the server keeps it.
struct CompiledKernel {
  std::string kernel;     // family/variant, as benchmarks name it
  std::string spirv, input;
  std::string operation;  // what it computes (format 3 on; empty before): the rankings' unit of comparison
  std::string limit;      // what bounds its time, contract::Limit's word (format 4 on; empty before: not known)
  std::string pipelines;  // the validated "pipelines" array as JSON text, keys sorted
  std::string sha;        // of spirv, input and pipelines: runs that compiled the same share one stored row
};

// The section's entries sorted by kernel; none where the document has no section. "operation" is required from
// format 3 on, "limit" from format 4 on. Throws ClientError naming the field.
std::vector<CompiledKernel> parse_compiled_section(const nlohmann::json& doc, int format_version);

}  // namespace shaderwatch
