// Pieces several of the read side's answers share. The answers are values (queries/*_answer.h); JSON is
// made from them at the API's edge only (render/api_json.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/compiled_statistics.h"

namespace shaderwatch {

struct GpuRef {
  std::int64_t id = 0;
  std::string vendor_id, device_id, name, device_type;
};

// One compilation of a kernel: its SPIR-V hash, input and the statistics its driver reported.
struct Compilation {
  std::string spirv, input;
  std::vector<CompiledStatistic> statistics;  // none where the device could not say
};

}  // namespace shaderwatch
