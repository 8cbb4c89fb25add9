// The post-processing kernels as a kernel family: an RGB image, read in each kernel's pixel space, to an image
// (or the depth-of-field tiles).
#include "families/postfx/postfx_family.h"

#include <stdexcept>

#include "families/kernel_family.h"
#include "families/postfx/postfx_check.h"

namespace shaderwatch {

namespace {

// Every pixel against the reference over the input as uploaded; the expected image is computed at the first call.
FamilyCheck postfx_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape, PostfxInput input) {
  if (input.pixels.size() != problem.items() * 4)
    throw std::logic_error(spec.name + ": the post-processing check needs the input as uploaded");
  return [&spec, &problem, shape, input = std::move(input), expected = ExpectedImage{}](const Readback& got) mutable {
    const uint32_t w = problem.width, h = problem.height;
    if (spec.method == Method::DofTiles) {
      return check_dof_tiles(w, h, input.pixels, shape.groups_x, shape.groups_y, got.as<float>(shape.groups() * 4));
    }
    if (expected.empty()) {
      expected = spec.method == Method::Blur           ? expected_blur(w, h, spec.blur_radius, input.pixels)
                 : spec.method == Method::DofComposite ? expected_dof_composite(w, h, spec.dof_max_radius, input.pixels)
                                                       : expected_pixel_map(spec, w, h, input.pixels, input.params);
    }
    return compare_image(expected, got.as<float>(problem.items() * 4));
  };
}

std::vector<CheckInput> postfx_check_inputs() {
  return {
      {InputKind::HdrTest, {640, 360, 0}},
      {InputKind::Random, {333, 77, 0}},
      {InputKind::HdrTest, {17, 3, 0}},
      {InputKind::Random, {1, 1, 0}},
      {InputKind::HdrTest, {256, 128, 0}},  // exact 16x16 tiles
      {InputKind::Random, {255, 127, 0}},
  };
}

}  // namespace

const KernelFamily& postfx_family() {
  static const KernelFamily family{
      .id = Family::Postfx,
      .name = "postfx",
      .display_name = "post-processing",
      .size = SizeKind::Image,
      .benchmark_input = InputKind::HdrTest,
      .make_problem = [](InputKind kind, const SizeSpec& size, uint64_t seed) {
        return make_postfx_problem(kind, size.width, size.height, seed);
      },
      .derive_input = [](const KernelSpec& spec, const Problem& problem) {
        return PostfxInput{postfx_input(spec, problem), postfx_params(problem)};
      },
      .make_runner = make_postfx_runner,
      .make_check = postfx_check,
      .check_inputs = postfx_check_inputs,
  };
  return family;
}

}  // namespace shaderwatch
