#include "report/compiled_section.h"

#include <string>

#include <shaderwatch/result_contract.h>

namespace shaderwatch {

using nlohmann::ordered_json;

namespace {

ordered_json statistic_json(const PipelineStatistic& s) {
  ordered_json out{{"name", s.name}, {"format", std::string(s.format_name())}};
  std::visit([&](auto value) { out["value"] = value; }, s.value);
  return out;
}

}  // namespace

ordered_json compiled_section(const std::vector<BenchmarkResult>& results, const std::string& device_suffix) {
  ordered_json section = ordered_json::object();
  for (const BenchmarkResult& r : results) {
    if (!r.spec || r.spirv_hash.empty() || r.device_suffix != device_suffix) continue;  // not run, or another device's
    const std::string& key = r.spec->name;
    if (section.contains(key)) continue;
    ordered_json pipelines = ordered_json::array();
    if (r.compiled) {
      for (const auto& executables : *r.compiled) {
        ordered_json pipeline = ordered_json::array();
        for (const PipelineExecutable& e : executables) {
          ordered_json statistics = ordered_json::array();
          for (const PipelineStatistic& s : e.statistics) statistics.push_back(statistic_json(s));
          pipeline.push_back({{"executable", e.name}, {"subgroup_size", e.subgroup_size}, {"statistics", statistics}});
        }
        pipelines.push_back(std::move(pipeline));
      }
    }
    section[key] = {{"spirv", r.spirv_hash}, {"input", r.input}, {"operation", r.spec->operation},
                    {contract::kLimitField, contract::limit_word(r.spec->limit)}, {"pipelines", std::move(pipelines)}};
  }
  return section;
}

}  // namespace shaderwatch
