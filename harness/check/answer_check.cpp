#include "check/answer_check.h"

namespace shaderwatch {

AnswerCheck::AnswerCheck(const KernelSpec& spec, const Problem& problem, RunShape shape, PostfxInput postfx)
    : spec_(spec), problem_(problem), shape_(shape), postfx_(std::move(postfx)) {
  if (spec.family == Family::Postfx && postfx_.pixels.size() != problem.items() * 4)
    throw std::logic_error(spec.name + ": the post-processing check needs the input as uploaded");
}

CheckResult AnswerCheck::check(const Readback& got) const {
  const std::lock_guard lock(mutex_);
  CheckResult o;
  const uint32_t w = problem_.width, h = problem_.height;
  switch (spec_.family) {
    case Family::Luminance:
      if (expected_groups_.empty()) expected_groups_ = expected_luminance(spec_, problem_, shape_);
      o = check_luminance(spec_, shape_, expected_groups_, got);
      break;
    case Family::Boids: o = check_boids(spec_, problem_, shape_, got); break;
    case Family::Postfx:
      if (spec_.method == Method::DofTiles) {
        o = check_dof_tiles(w, h, postfx_.pixels, shape_.groups_x, shape_.groups_y, got.as<float>(shape_.groups() * 4));
        break;
      }
      if (expected_image_.empty()) {
        expected_image_ = spec_.method == Method::Blur ? expected_blur(w, h, spec_.blur_radius, postfx_.pixels)
                          : spec_.method == Method::DofComposite
                              ? expected_dof_composite(w, h, spec_.dof_max_radius, postfx_.pixels)
                              : expected_pixel_map(spec_, w, h, postfx_.pixels, postfx_.params);
      }
      o = compare_image(expected_image_, got.as<float>(problem_.items() * 4));
      break;
  }
  check_kernel_state(got, o);
  return o;
}

}  // namespace shaderwatch
