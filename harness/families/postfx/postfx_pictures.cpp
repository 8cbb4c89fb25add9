// The post-processing family's pictures: every tone-mapping operator (on the contact sheet too), the circle of
// confusion, and the depth of field's input and composite, all on the HDR test image.
#include <algorithm>
#include <cmath>

#include "families/postfx/postfx_check.h"
#include "families/postfx/postfx_family.h"
#include "postfx.h"

namespace shaderwatch {

namespace {

uint8_t srgb8(double linear) {  // display encoding of a [0, 1] linear value
  const double c = std::clamp(linear, 0.0, 1.0);
  const double s = c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055;
  return static_cast<uint8_t>(std::lround(s * 255));
}

// encode: apply the sRGB curve (not for Hejl-Burgess-Dawson, whose fit already includes the display gamma).
Rgb8 to_display(const std::vector<float>& out, uint32_t width, uint32_t height, bool yxy, bool encode) {
  auto to8 = [&](double v) { return encode ? srgb8(v) : static_cast<uint8_t>(std::lround(255 * std::clamp(v, 0.0, 1.0))); };
  Rgb8 image{width, height, std::vector<uint8_t>(uint64_t{width} * height * 3)};
  for (uint64_t i = 0; i < uint64_t{width} * height; ++i) {
    reference::Vec3<double> c{out[i * 4], out[i * 4 + 1], out[i * 4 + 2]};
    if (yxy) c = reference::yxy_to_rgb(c);
    image.pixels[i * 3] = to8(c.a);
    image.pixels[i * 3 + 1] = to8(c.b);
    image.pixels[i * 3 + 2] = to8(c.c);
  }
  return image;
}

// Near in red, far in green, brightness by size (saturating at 32 pixels).
Rgb8 coc_picture(const std::vector<float>& coc, const Problem& problem) {
  Rgb8 image{problem.width, problem.height, std::vector<uint8_t>(problem.items() * 3, 0)};
  for (uint64_t i = 0; i < problem.items(); ++i) {
    const double c = coc[i * 4];
    image.pixels[i * 3 + (c < 0 ? 0 : 1)] = static_cast<uint8_t>(std::lround(255 * std::min(1.0, std::fabs(c) / 32)));
  }
  return image;
}

// HDR colour Reinhard-tone-mapped (exposure key / Lavg) for display.
Rgb8 exposed_picture(std::vector<float> pixels, const Problem& problem) {
  const float exposure = postfx_params(problem).exposure;
  for (uint64_t i = 0; i < pixels.size(); ++i) {
    if (i % 4 != 3) pixels[i] = pixels[i] * exposure / (1 + pixels[i] * exposure);
  }
  return to_display(pixels, problem.width, problem.height, false, true);
}

}  // namespace

PictureSet postfx_pictures() {
  PictureSet set{InputKind::HdrTest, {}};
  const std::string prefix = "postfx/tonemap_";
  for (const auto& spec : catalog()) {
    if (spec.name.rfind(prefix, 0) != 0) continue;
    const std::string op = spec.name.substr(prefix.size());
    const bool yxy = spec.stage == PostfxStage::ToneMapY, encode = op != "hejl_burgess_dawson";
    set.pictures.push_back({"tonemap_" + op + ".png", spec.name, false, op, [yxy, encode](const auto& out, const Problem& p) {
                              return to_display(out, p.width, p.height, yxy, encode);
                            }});
  }
  set.pictures.push_back({"coc.png", "postfx/coc", false, "", coc_picture});
  set.pictures.push_back({"dof_input.png", "postfx/dof_composite", true, "", exposed_picture});
  set.pictures.push_back({"dof_composite.png", "postfx/dof_composite", false, "", exposed_picture});
  return set;
}

}  // namespace shaderwatch
