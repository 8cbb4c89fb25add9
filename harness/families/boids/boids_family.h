#pragma once
// What the boids family shows beyond its KernelFamily: its methods' table (boids_method.h has the methods).
#include "families/kernel_method.h"

namespace shaderwatch {

// Its method for `id`; throws std::logic_error for another family's.
const KernelMethod& boids_method(Method id);

// The family's generator (boids_inputs.cpp): positions, w 0. Throws std::invalid_argument for no boids (nothing is
// dispatched for it) or more than 2^28.
Problem make_boids_problem(InputKind kind, uint64_t count, uint64_t seed);

}  // namespace shaderwatch
