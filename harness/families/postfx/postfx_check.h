#pragma once
// Post-processing kernels: their inputs (derived from the problem's RGB image), parameters, and the
// per-pixel check against reference/postfx.h evaluated with error tracking (reference/tracked.h).
#include <span>
#include <vector>

#include "catalog.h"
#include "check/answer_check.h"
#include "check/check.h"
#include "inputs/inputs.h"
#include "postfx.h"

namespace shaderwatch {

// The kernel's input pixels (RGBA per pixel) in spec.input_space.
std::vector<float> postfx_input(const KernelSpec& spec, const Problem& problem);
// Exposure and bright-pass from the image's log-average luminance (Reinhard, delta 1e-4, key 0.18).
reference::PostfxParams postfx_params(const Problem& problem);
// The parameters a post-processing input was derived with (the family's derive_input puts postfx_params there);
// throws std::bad_any_cast for an input derived by another family.
const reference::PostfxParams& params_of(const DerivedInput& input);
reference::LensParams postfx_lens();

// The expected image: every channel's reference value and bound (twice its tracked error). Computed once
// per kernel run and reused by later checks (the benchmark checks hot and cold runs of one KernelRun).
struct ExpectedImage {
  uint32_t width = 0, height = 0;
  std::vector<double> value;
  std::vector<float> bound;
  bool empty() const { return value.empty(); }
};
ExpectedImage expected_pixel_map(const KernelSpec& spec, uint32_t width, uint32_t height,
                                 const std::vector<float>& input, const reference::PostfxParams& params);
ExpectedImage expected_blur(uint32_t width, uint32_t height, uint32_t radius, const std::vector<float>& input);
// The depth-of-field composite of an RGB + depth image (reference/postfx.h's dof_* formulas).
ExpectedImage expected_dof_composite(uint32_t width, uint32_t height, uint32_t max_radius, const std::vector<float>& input);
// Every channel of every pixel against its bound; RMSE over the image.
CheckResult compare_image(const ExpectedImage& expected, std::span<const float> gpu);
CheckResult check_dof_tiles(uint32_t width, uint32_t height, const std::vector<float>& depth, uint32_t tiles_x,
                        uint32_t tiles_y, const std::vector<float>& gpu);

}  // namespace shaderwatch
