// Reading and adjusting a SPIR-V module's words: its instructions, after the 5-word header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shaderwatch {

// Calls visit(opcode, index of the instruction's first word, its word count) for each instruction, in order; stops
// at a malformed word count (0 or past the end).
template <class Visit>
void for_each_instruction(const std::vector<uint32_t>& spirv, Visit visit) {
  constexpr size_t kHeaderWords = 5;
  for (size_t i = kHeaderWords; i < spirv.size();) {
    const uint32_t words = spirv[i] >> 16, opcode = spirv[i] & 0xFFFF;
    if (words == 0 || i + words > spirv.size()) return;
    visit(opcode, i, words);
    i += words;
  }
}

// The module with the Unroll hint of every loop cleared (OpLoopMerge's loop control): the same program, which a
// compiler may still unroll on its own. For CPU devices: lavapipe's LLVM took 8 minutes over one pipeline of the
// depth-of-field composite's walks unrolled whole, and its 6 check inputs took 5 s with the hints cleared.
std::vector<uint32_t> without_unroll_hints(std::vector<uint32_t> spirv);

}  // namespace shaderwatch
