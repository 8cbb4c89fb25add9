#pragma once
// What the post-processing family shows beyond its KernelFamily and postfx_check.h: its methods' table
// (postfx_method.h has the methods).
#include "families/kernel_method.h"
#include "families/picture.h"

namespace shaderwatch {

// Its method for `id`; throws std::logic_error for another family's.
const KernelMethod& postfx_method(Method id);

// The family's generator (postfx_inputs.cpp): an RGBA image (Random: positive HDR-like values; HdrTest: the test
// image of gradients, a sun, black rows and saturated primaries).
Problem make_postfx_problem(InputKind kind, uint32_t width, uint32_t height, uint64_t seed);

// What --write-images draws of the family (postfx_pictures.cpp).
PictureSet postfx_pictures();

}  // namespace shaderwatch
