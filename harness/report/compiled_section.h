#pragma once
// The results document's section of what was compiled, once per kernel and device (contract::kCompiledSection).
#include <vector>

#include <nlohmann/json.hpp>

#include "report/benchmark_report.h"

namespace shaderwatch {

// {"<family/variant>": {"spirv": ..., "input": ..., "operation": ..., "limit": ...,
//                        "pipelines": [[{"executable", "subgroup_size", "statistics"}]]}}
// from each kernel's first benchmark on the device whose results end in `device_suffix`.
nlohmann::ordered_json compiled_section(const std::vector<BenchmarkResult>& results, const std::string& device_suffix);

}  // namespace shaderwatch
