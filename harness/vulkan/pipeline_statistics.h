#pragma once
// What the driver's compiler made of a pipeline, where the device has VK_KHR_pipeline_executable_properties:
// each executable (a compiled stage) with the subgroup size it runs at and every statistic the driver names for
// it (registers, shared memory, instruction counts: whatever it reports, as it reports them).
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "vulkan/vulkan_context.h"

namespace shaderwatch {

struct PipelineStatistic {
  std::string name, description;
  std::variant<bool, int64_t, uint64_t, double> value;  // as the driver typed it (VkPipelineExecutableStatisticFormatKHR)
  // The driver's format in words: "bool32", "int64", "uint64" or "float64".
  std::string_view format_name() const;
  // The value for people: "true", "40", "0.5".
  std::string value_text() const;
};

struct PipelineExecutable {
  std::string name, description;
  uint32_t subgroup_size = 0;
  std::vector<PipelineStatistic> statistics;
};

// The executables of `pipeline`, made with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR on `device`
// (Device::captures_pipeline_statistics()).
std::vector<PipelineExecutable> pipeline_executables(const Device& device, VkPipeline pipeline);

}  // namespace shaderwatch
