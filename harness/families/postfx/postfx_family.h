#pragma once
// What the post-processing family shows beyond its KernelFamily and postfx_check.h: its methods' table
// (postfx_method.h has the methods).
#include "families/kernel_method.h"

namespace shaderwatch {

// Its method for `id`; throws std::logic_error for another family's.
const KernelMethod& postfx_method(Method id);

}  // namespace shaderwatch
