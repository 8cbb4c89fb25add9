#pragma once
// What the boids family shows beyond its KernelFamily: its methods' table (boids_method.h has the methods).
#include "families/kernel_method.h"

namespace shaderwatch {

// Its method for `id`; throws std::logic_error for another family's.
const KernelMethod& boids_method(Method id);

}  // namespace shaderwatch
