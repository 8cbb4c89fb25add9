#include "families/grid_stride_checks.h"

namespace shaderwatch {

std::vector<GridStrideCheck> grid_stride_checks(const KernelSpec& spec, const DeviceInfo& device, const std::string& unit) {
  const uint32_t unroll = static_cast<uint32_t>(std::stoul(define_value(spec, "UNROLL")));
  const uint64_t stride = uint64_t{grid_stride_groups(device, ~uint64_t{0} / 2, spec.group_x)} * spec.group_x;
  std::vector<GridStrideCheck> checks;
  for (uint32_t c = 0; c < unroll; ++c)
    checks.push_back({stride, stride * (2 * (unroll + c) + 1) / 2,
                      "stride " + std::to_string(stride) + " " + unit + ": invocations visit " + std::to_string(unroll + c) +
                          " or " + std::to_string(unroll + c + 1) + " " + unit + ", " + std::to_string(unroll) + " a round"});
  return checks;
}

}  // namespace shaderwatch
