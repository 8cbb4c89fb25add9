// Pieces several of the read side's answers share. The answers are values (queries/*_answer.h); JSON is
// made from them at the API's edge only (render/api_json.h).
#pragma once

#include <cstdint>
#include <string>

#include "common/compiled_statistics.h"  // Compilation

namespace shaderwatch {

struct GpuRef {
  std::int64_t id = 0;
  std::string vendor_id, device_id, name, device_type;
};

}  // namespace shaderwatch
