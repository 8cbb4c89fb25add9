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
  std::string name;
  std::variant<bool, int64_t, uint64_t, double> value;  // as the driver typed it (VkPipelineExecutableStatisticFormatKHR)
  // The driver's format in words: "bool32", "int64", "uint64" or "float64".
  std::string_view format_name() const;
  // The value for people: "true", "40", "0.5".
  std::string value_text() const;
};

struct PipelineExecutable {
  std::string name;
  uint32_t subgroup_size = 0;
  std::vector<PipelineStatistic> statistics;
};

// The flag a pipeline is created with so that the driver keeps what it compiled, where `device` can say
// (Device::captures_pipeline_statistics()); else none.
VkPipelineCreateFlags statistics_flags(const Device& device);
// The executables of `pipeline`, created with statistics_flags(device); empty where the device cannot say.
std::vector<PipelineExecutable> pipeline_executables(const Device& device, VkPipeline pipeline);

}  // namespace shaderwatch
