// The post-processing kernels as a kernel family: an RGB image, read in each kernel's pixel space, to an image
// (or the depth-of-field tiles).
#include "families/postfx/postfx_family.h"

#include "families/kernel_family.h"
#include "families/postfx/postfx_method.h"

namespace shaderwatch {

const KernelMethod& postfx_method(Method id) {
  static const MethodTable<KernelMethod> table{
      {Method::PixelMap, &postfx_pixel_map_method()},
      {Method::Blur, &postfx_blur_method()},
      {Method::DofTiles, &postfx_dof_tiles_method()},
      {Method::DofComposite, &postfx_dof_composite_method()},
  };
  return find_method(table, id, "the post-processing family");
}

namespace {

// The blurs of one radius (naive, shared) expect one image; every other kernel its own.
// Kernels that compute the same image share its reference: the blurs of one radius, the depth-of-field composites of
// one CoC clamp (the reference of a 7680x4320 composite takes seconds of the suite's 16 cores).
std::string postfx_reference_key(const KernelSpec& spec) {
  if (spec.method == Method::Blur) return "blur r" + std::to_string(spec.blur_radius);
  if (spec.method == Method::DofComposite) return "dof composite r" + std::to_string(spec.dof_max_radius);
  return spec.name;
}

std::vector<CheckInput> postfx_check_inputs() {
  return {
      {InputKind::HdrTest, {640, 360, 0}},
      {InputKind::Random, {333, 77, 0}},
      {InputKind::HdrTest, {17, 3, 0}},
      {InputKind::Random, {1, 1, 0}},
      {InputKind::HdrTest, {256, 128, 0}},  // exact 16x16 tiles
      {InputKind::Random, {255, 127, 0}},
      // A CoC in pixels grows with the width: 3840 wide, the far third's and the near third's reach the clamp, as
      // at 4K (the depth-of-field composites' paths for a window of clamped pixels), on fewer pixels than 640x360.
      {InputKind::HdrTest, {3840, 48, 0}},
      // 144 wide, the nearest pixels' CoC is 6.5 pixels: tiles full of near pixels that reach less than the clamp.
      {InputKind::HdrTest, {144, 64, 0}},
  };
}

// What the tiled kernels read from push constant word 4 on, in postfx.glsl's order.
std::vector<float> push_parameters(const reference::PostfxParams& p, const Problem& problem) {
  const reference::LensParams lens = postfx_lens();
  return {p.exposure, p.white_point, p.lavg, p.key, p.threshold, p.offset, p.lottes_b, p.lottes_c,
          lens.focal_length, lens.f_stop, lens.focus_distance, static_cast<float>(problem.width / lens.sensor_width),
          p.drago_lmax, p.drago_scale};
}

}  // namespace

const KernelFamily& postfx_family() {
  static const KernelFamily family{
      .id = Family::Postfx,
      .name = "postfx",
      .display_name = "post-processing",
      .size = family_size_kind(Family::Postfx),
      .benchmark_input = InputKind::HdrTest,
      .make_problem = [](InputKind kind, const SizeSpec& size, uint64_t seed) {
        return make_postfx_problem(kind, size.width, size.height, seed);
      },
      .generator_version = 1,  // as of 2026-11-26, its HdrTest image included
      .derive_input = [](const KernelSpec& spec, const Problem& problem) {
        const reference::PostfxParams params = postfx_params(problem);
        return DerivedInput{.data = std::make_shared<const std::vector<float>>(postfx_input(spec, problem)),
                            .parameters = params,
                            .push_parameters = push_parameters(params, problem)};
      },
      .input_variant = [](const KernelSpec& spec) { return static_cast<int>(spec.input_space); },
      .reference_key = postfx_reference_key,
      // NaN spreads through the per-pixel maps and the blurs. The depth-of-field kernels read depth through
      // comparisons (near or far, the tile pass's min, max and counts), all of which pass over a NaN: their input
      // (RGB + depth) gets extreme values, a far pixel at the largest circle with colours far past any bound. One
      // guard for the whole input space, so the circle of confusion, the tiles and the composite share one upload.
      .input_guard = [](const KernelSpec& spec) {
        return spec.input_space == PixelSpace::RgbDepth ? GuardFill::Extremes : GuardFill::NaN;
      },
      .method = postfx_method,
      .check_ns_per_item = 300,  // Tracked arithmetic per pixel; blurs and depth of field gather dozens of taps
      .check_inputs = postfx_check_inputs,
      .pictures = postfx_pictures,
  };
  return family;
}

}  // namespace shaderwatch
