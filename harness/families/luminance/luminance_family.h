#pragma once
// What the luminance family shows beyond its KernelFamily: its methods' table and the reference per output
// element (tests build readbacks from it).
#include <vector>

#include "check/answer_check.h"
#include "luminance.h"

namespace shaderwatch {

class LuminanceMethod;
// Its method for `id` (luminance_method.h); throws std::logic_error for another family's.
const LuminanceMethod& luminance_method(Method id);

// The family's generator (luminance_inputs.cpp): an RGBA image, alpha 1. Throws std::invalid_argument for an empty
// image (nothing is dispatched for it) or one past 2^31 pixels.
Problem make_luminance_problem(InputKind kind, uint32_t width, uint32_t height, uint64_t seed);

// The reference of each output element over exactly the pixels the kernel assigns to it.
std::vector<reference::LuminanceGroup> expected_luminance(const KernelSpec& spec, const Problem& problem,
                                                          const RunShape& shape);

}  // namespace shaderwatch
