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

// The reference of each output element over exactly the pixels the kernel assigns to it.
std::vector<reference::LuminanceGroup> expected_luminance(const KernelSpec& spec, const Problem& problem,
                                                          const RunShape& shape);

}  // namespace shaderwatch
