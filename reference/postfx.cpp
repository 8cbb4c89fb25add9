#include "postfx.h"

namespace shaderwatch::reference {

void lottes_constants(PostfxParams& p) {
  const double a = 1.6, d = 0.977, hdr_max = 8.0, mid_in = 0.18, mid_out = 0.267;
  const double denom = (std::pow(hdr_max, a * d) - std::pow(mid_in, a * d)) * mid_out;
  p.lottes_b = static_cast<float>((-std::pow(mid_in, a) + std::pow(hdr_max, a) * mid_out) / denom);
  p.lottes_c = static_cast<float>(
      (std::pow(hdr_max, a * d) * std::pow(mid_in, a) - std::pow(hdr_max, a) * std::pow(mid_in, a * d) * mid_out) / denom);
}

void drago_constants(PostfxParams& p, double lmax_over_lavg) {
  const double ld_max = 80.0;
  p.drago_lmax = static_cast<float>(lmax_over_lavg);
  p.drago_scale = static_cast<float>(0.01 * ld_max / std::log10(1.0 + lmax_over_lavg));
}

}  // namespace shaderwatch::reference
