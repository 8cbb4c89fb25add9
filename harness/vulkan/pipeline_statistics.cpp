#include "vulkan/pipeline_statistics.h"

#include <cstdio>

namespace shaderwatch {

std::string_view PipelineStatistic::format_name() const {
  static constexpr std::string_view kNames[] = {"bool32", "int64", "uint64", "float64"};  // the variant's order
  return kNames[value.index()];
}

std::string PipelineStatistic::value_text() const {
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const auto* d = std::get_if<double>(&value)) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", *d);
    return text;
  }
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  return std::to_string(std::get<uint64_t>(value));
}

VkPipelineCreateFlags statistics_flags(const Device& device) {
  return device.captures_pipeline_statistics() ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0;
}

std::vector<PipelineExecutable> pipeline_executables(const Device& device, VkPipeline pipeline) {
  if (!device.captures_pipeline_statistics()) return {};
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  uint32_t count = 0;
  vk_check(vkGetPipelineExecutablePropertiesKHR(device.handle(), &info, &count, nullptr),
           "vkGetPipelineExecutablePropertiesKHR");
  std::vector<VkPipelineExecutablePropertiesKHR> properties(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  vk_check(vkGetPipelineExecutablePropertiesKHR(device.handle(), &info, &count, properties.data()),
           "vkGetPipelineExecutablePropertiesKHR");
  std::vector<PipelineExecutable> out;
  for (uint32_t e = 0; e < count; ++e) {
    PipelineExecutable executable{properties[e].name, properties[e].subgroupSize, {}};
    VkPipelineExecutableInfoKHR which{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    which.pipeline = pipeline;
    which.executableIndex = e;
    uint32_t n = 0;
    vk_check(vkGetPipelineExecutableStatisticsKHR(device.handle(), &which, &n, nullptr),
             "vkGetPipelineExecutableStatisticsKHR");
    std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    vk_check(vkGetPipelineExecutableStatisticsKHR(device.handle(), &which, &n, stats.data()),
             "vkGetPipelineExecutableStatisticsKHR");
    for (uint32_t s = 0; s < n; ++s) {
      PipelineStatistic statistic{stats[s].name, false};
      switch (stats[s].format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: statistic.value = stats[s].value.b32 == VK_TRUE; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: statistic.value = stats[s].value.i64; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: statistic.value = stats[s].value.u64; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: statistic.value = stats[s].value.f64; break;
        default: continue;  // a format newer than this harness: left out rather than misread
      }
      executable.statistics.push_back(std::move(statistic));
    }
    out.push_back(std::move(executable));
  }
  return out;
}

}  // namespace shaderwatch
