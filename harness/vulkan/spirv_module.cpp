#include "vulkan/spirv_module.h"

namespace shaderwatch {

std::vector<uint32_t> without_unroll_hints(std::vector<uint32_t> spirv) {
  // OpLoopMerge: merge block, continue target, loop control (then the controls' parameters; Unroll has none).
  constexpr uint32_t kOpLoopMerge = 246, kLoopControlUnroll = 0x1;
  for_each_instruction(spirv, [&](uint32_t opcode, size_t at, uint32_t words) {
    if (opcode == kOpLoopMerge && words >= 4) spirv[at + 3] &= ~kLoopControlUnroll;
  });
  return spirv;
}

}  // namespace shaderwatch
