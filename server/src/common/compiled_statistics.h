// The statistics a driver reported for a kernel's compiled pipelines (the "pipelines" JSON the server keeps
// per run and kernel, ingest/compiled_parse.h), flattened to one named number each, and how two compilations
// differ in them: what the series page draws and what attribution reads as the compiler's evidence.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shaderwatch {

struct CompiledStatistic {
  std::string name;  // "<executable> <statistic>", e.g. "CS Register Count"; "pipeline N ..." where names repeat
  std::string executable, statistic;  // the driver's words: "CS", "Register Count"
  double value = 0;  // a bool32 as 0 or 1
};

// One compilation of a kernel: its SPIR-V hash, input and the statistics its driver reported.
struct Compilation {
  std::string spirv, input;
  std::vector<CompiledStatistic> statistics;  // none where the device could not say
};

// In the driver's order. Empty for "[]" (a device without VK_KHR_pipeline_executable_properties).
std::vector<CompiledStatistic> flatten_statistics(std::string_view pipelines_json);

// Each statistic that differs between two compilations, its values as text ("absent" on the side without it).
struct StatisticChange {
  std::string name, before, after;
};
std::vector<StatisticChange> statistic_changes(const std::vector<CompiledStatistic>& before,
                                               const std::vector<CompiledStatistic>& after);

// The statistics that differ between two compilations, as "before" and "after" texts ("CS Register Count 16",
// one per changed statistic, "; " between): both empty where every statistic is the same. A statistic only one
// side has is "absent" on the other.
std::pair<std::string, std::string> statistics_difference(const std::vector<CompiledStatistic>& before,
                                                          const std::vector<CompiledStatistic>& after);

}  // namespace shaderwatch
