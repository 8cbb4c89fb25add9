#pragma once
// Post-processing kernels: their inputs (derived from the problem's RGB image), parameters, and the
// per-pixel check against reference/postfx.h evaluated with error tracking (reference/tracked.h).
#include <vector>

#include "catalog.h"
#include "check.h"
#include "inputs.h"
#include "postfx.h"

namespace shaderwatch {

// The kernel's input pixels (RGBA per pixel) in spec.input_space.
std::vector<float> postfx_input(const KernelSpec& spec, const Problem& problem);
// Exposure and bright-pass from the image's log-average luminance (Reinhard, delta 1e-4, key 0.18).
reference::PostfxParams postfx_params(const Problem& problem);
reference::LensParams postfx_lens();
// Normalised Gaussian weights, sigma = radius / 3, as float (the shader reads these exact values).
std::vector<float> blur_weights(uint32_t radius);

// Every channel of every pixel against its bound; RMSE over the image.
Outcome check_pixel_map(const KernelSpec& spec, uint32_t width, uint32_t height, const std::vector<float>& input,
                        const reference::PostfxParams& params, const std::vector<float>& gpu);
Outcome check_blur(uint32_t width, uint32_t height, uint32_t radius, const std::vector<float>& input,
                   const std::vector<float>& gpu);
Outcome check_dof_tiles(uint32_t width, uint32_t height, const std::vector<float>& depth, uint32_t tiles_x,
                        uint32_t tiles_y, const std::vector<float>& gpu);

}  // namespace shaderwatch
