#pragma once
// Post-processing formulas (seed 000, "Call for a new Post-Processing Pipeline"), each
// written once as a template: with double it is plain arithmetic, with Tracked it carries the reference
// value and the per-pixel error bound of a float32 GPU evaluation. The shaders in kernels/postfx_*.comp
// evaluate the same expressions in the same order.
#include <array>
#include <cmath>
#include <cstdint>

#include "tracked.h"

namespace shaderwatch::reference {

// Tone-mapping operators; the numbers are the catalog's and the shaders' OPERATOR values.
enum class ToneOperator : int {
  Reinhard = 0,
  ReinhardExtended = 1,
  Hable = 2,
  AcesNarkowicz = 3,
  AcesHill = 4,  // an RGB operator: applied to exposed RGB, not to Y
  HejlBurgessDawson = 5,
  Lottes = 6,
  Uchimura = 7,
  Drago = 8,  // adaptive logarithmic; takes L' = Y / Lwa (world adaptation = log-average), Lmax' likewise
  Day = 9,    // Insomniac; takes x' = Y / Lavg (log-average)
};

// Parameters shared by the shaders (push constants) and the references.
struct PostfxParams {
  float exposure = 1.0f;       // key / Lavg
  float white_point = 4.0f;    // Reinhard extended Lw
  float lavg = 1.0f;           // bright-pass: log-average luminance
  float key = 0.18f;           // bright-pass: key a
  float threshold = 5.0f;      // bright-pass T
  float offset = 10.0f;        // bright-pass O
  float lottes_b = 0, lottes_c = 0;  // derived once in double, rounded to float (lottes_constants)
  float drago_lmax = 1.0f;           // Lmax' = max Y / Lwa of the image
  float drago_scale = 0.0f;          // 0.01 Ldmax / log10(1 + Lmax'), Ldmax = 80 (drago_constants)
};
void lottes_constants(PostfxParams& p);
// From the image's largest luminance over its log-average; computed in double, rounded to float.
void drago_constants(PostfxParams& p, double lmax_over_lavg);

template <class T>
struct Vec3 {
  T a, b, c;
};

// sRGB / Rec.709 primaries, D65 white, Bruce Lindbloom's matrices (rows).
template <class T>
Vec3<T> rgb_to_xyz(const Vec3<T>& rgb) {
  const T X = T(0.4124564) * rgb.a + T(0.3575761) * rgb.b + T(0.1804375) * rgb.c;
  const T Y = T(0.2126729) * rgb.a + T(0.7151522) * rgb.b + T(0.0721750) * rgb.c;
  const T Z = T(0.0193339) * rgb.a + T(0.1191920) * rgb.b + T(0.9503041) * rgb.c;
  return {X, Y, Z};
}
template <class T>
Vec3<T> xyz_to_rgb(const Vec3<T>& xyz) {
  const T R = T(3.2404542) * xyz.a - T(1.5371385) * xyz.b - T(0.4985314) * xyz.c;
  const T G = T(-0.9692660) * xyz.a + T(1.8760108) * xyz.b + T(0.0415560) * xyz.c;
  const T B = T(0.0556434) * xyz.a - T(0.2040259) * xyz.b + T(1.0572252) * xyz.c;
  return {R, G, B};
}

inline double value_of(double v) { return v; }
inline double value_of(const Tracked& v) { return v.value; }

// Returns (Y, x, y). A black pixel (X + Y + Z == 0) gets the D65 white point's chromaticity.
template <class T>
Vec3<T> rgb_to_yxy(const Vec3<T>& rgb) {
  const Vec3<T> xyz = rgb_to_xyz(rgb);
  const T sum = xyz.a + xyz.b + xyz.c;
  if (!(value_of(sum) > 0)) return {xyz.b, T(0.3127), T(0.3290)};
  return {xyz.b, xyz.a / sum, xyz.b / sum};
}
// From (Y, x, y); y == 0 (only for black) gives black.
template <class T>
Vec3<T> yxy_to_rgb(const Vec3<T>& Yxy) {
  const T& Y = Yxy.a;
  const T& x = Yxy.b;
  const T& y = Yxy.c;
  if (!(value_of(y) > 0)) return {T(0.0), T(0.0), T(0.0)};
  const T X = x * Y / y;
  const T Z = (T(1.0) - x - y) * Y / y;
  return xyz_to_rgb(Vec3<T>{X, Y, Z});
}

template <class T>
T hable_curve(T x) {
  const T A(0.15), B(0.50), C(0.10), D(0.20), E(0.02), F(0.30);
  return (x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F) - E / F;
}

template <class T>
T pow_nonneg(T x, T y) {  // pow(0, y > 0) is 0: exp2(y * log2(0)) = exp2(-inf)
  if (value_of(x) == 0) return T(0.0);
  using std::pow;
  return pow(x, y);
}

// Tone-maps exposed luminance x = Y * key / Lavg (every operator but AcesHill). Drago and Day want Y over
// the log-average instead: x / key.
template <class T>
T tone_map(ToneOperator op, T x, const PostfxParams& p) {
  using std::clamp;
  using std::exp;
  using std::log;
  using std::max;
  switch (op) {
    case ToneOperator::Reinhard:
      return x / (T(1.0) + x);
    case ToneOperator::ReinhardExtended: {
      const T lw(p.white_point);
      return x * (T(1.0) + x / (lw * lw)) / (T(1.0) + x);
    }
    case ToneOperator::Hable:
      return hable_curve(T(2.0) * x) / hable_curve(T(11.2));
    case ToneOperator::AcesNarkowicz: {
      const T v = x * (T(2.51) * x + T(0.03)) / (x * (T(2.43) * x + T(0.59)) + T(0.14));
      return clamp(v, T(0.0), T(1.0));
    }
    case ToneOperator::HejlBurgessDawson: {
      const T xp = max(T(0.0), x - T(0.004));
      return xp * (T(6.2) * xp + T(0.5)) / (xp * (T(6.2) * xp + T(1.7)) + T(0.06));
    }
    case ToneOperator::Lottes: {
      const T a(1.6), ad(1.6 * 0.977);
      return pow_nonneg(x, a) / (pow_nonneg(x, ad) * T(p.lottes_b) + T(p.lottes_c));
    }
    case ToneOperator::Uchimura: {
      const T P(1.0), a(1.0), m(0.22), l(0.4), c(1.33), b(0.0);
      const T l0 = (P - m) * l / a;
      const T S0 = m + l0;
      const T S1 = m + a * l0;
      const T CP = -(a * P / (P - S1)) / P;
      const T w0 = T(1.0) - smoothstep(T(0.0), m, x);
      const T w2 = step(m + l0, x);
      const T w1 = T(1.0) - w0 - w2;
      const T toe = m * pow_nonneg(x / m, c) + b;
      const T linear = m + a * (x - m);
      const T shoulder = P - (P - S1) * exp(CP * (x - S0));
      return toe * w0 + linear * w1 + shoulder * w2;
    }
    case ToneOperator::Drago: {  // bias b = 0.85: exponent ln(b) / ln(0.5)
      const T l = x / T(p.key);
      return T(p.drago_scale) * log(T(1.0) + l) /
             log(T(2.0) + T(8.0) * pow_nonneg(l / T(p.drago_lmax), T(0.23446525)));
    }
    case ToneOperator::Day: {  // w = 10, b = 0.1, t = 0.7, s = 0.8, c = 2; clamped: the toe is negative below b
      const T w(10.0), b(0.1), t(0.7), s(0.8), c(2.0), one(1.0);
      const T l = x / T(p.key);
      const T k = (one - t) * (c - b) / ((one - s) * (w - c) + (one - t) * (c - b));
      const T toe = k * (one - t) * (l - b) / (c - (one - t) * b - t * l);
      const T shoulder = (one - k) * (l - c) / (s * l + (one - s) * w - c) + k;
      return clamp(select_below(l, c, toe, shoulder), T(0.0), T(1.0));
    }
    case ToneOperator::AcesHill:
      break;
  }
  return x;
}

// ACES fitted (Stephen Hill): RGB in, RGB out.
template <class T>
Vec3<T> aces_hill(const Vec3<T>& c) {
  const Vec3<T> v{T(0.59719) * c.a + T(0.35458) * c.b + T(0.04823) * c.c,
                  T(0.07600) * c.a + T(0.90834) * c.b + T(0.01566) * c.c,
                  T(0.02840) * c.a + T(0.13383) * c.b + T(0.83777) * c.c};
  auto rrt_odt = [](T x) {
    return (x * (x + T(0.0245786)) - T(0.000090537)) / (x * (T(0.983729) * x + T(0.4329510)) + T(0.238081));
  };
  const Vec3<T> f{rrt_odt(v.a), rrt_odt(v.b), rrt_odt(v.c)};
  return {T(1.60475) * f.a - T(0.53108) * f.b - T(0.07367) * f.c,
          T(-0.10208) * f.a + T(1.10813) * f.b - T(0.00605) * f.c,
          T(-0.00327) * f.a - T(0.07276) * f.b + T(1.07602) * f.c};
}

// Bright-pass (DirectX SDK HDRLighting) on Y.
template <class T>
T bright_pass(T Y, const PostfxParams& p) {
  using std::max;
  const T c1 = max(Y * T(p.key) / (T(p.lavg) + T(0.001)) - T(p.threshold), T(0.0));
  return c1 / (T(p.offset) + c1);
}

// Dynamic local gamma (seed 000 after Kwon et al.): L tone-mapped, in [0, 1].
template <class T>
T local_gamma(T L) {
  using std::log;
  const T g = T(0.444) + T(0.045) * log(L + T(0.6034));
  return pow_nonneg(L, g);
}

// The fused pass: RGB -> Yxy -> exposure -> tone map -> local gamma -> RGB.
template <class T>
Vec3<T> fused(ToneOperator op, const Vec3<T>& rgb, const PostfxParams& p) {
  Vec3<T> Yxy = rgb_to_yxy(rgb);
  Yxy.a = local_gamma(tone_map(op, Yxy.a * T(p.exposure), p));
  return yxy_to_rgb(Yxy);
}

// Circle of confusion in pixels (Potmesil & Chakravarty): negative in the near field, positive far.
struct LensParams {
  float focal_length = 0.05f;   // m
  float f_stop = 2.8f;
  float focus_distance = 5.0f;  // m
  float sensor_width = 0.036f;  // m
};
template <class T>
T circle_of_confusion(T z, const LensParams& lens, uint32_t image_width) {
  const T f(lens.focal_length), zf(lens.focus_distance);
  const T aperture = f / T(lens.f_stop);
  const T coc = aperture * f * (z - zf) / (z * (zf - f));  // signed: z < zf is near
  return coc * T(static_cast<float>(image_width / lens.sensor_width));
}

// Depth-of-field composite (gather), kernels/postfx_dof_composite.comp. Per output pixel p, over the taps q
// of a window (edges clamped), each tap's CoC clamped to +-MAX_RADIUS pixels:
//   far + focus  F = sum wf_q c_q / sum wf_q,  wf_q = coverage(far radius of p, |q - p|), near taps left out
//                (but for p itself, so sum wf >= 1): the gather radius follows p's CoC;
//   near         wn_q = coverage(near radius of q, |q - p|) / area(near radius of q) for near taps q: each
//                near pixel spreads over the disc its CoC covers (scatter as gather), so the near layer bleeds
//                over what lies behind it; its coverage is alpha = min(sum wn, 1);
//   out          F (1 - alpha) + sum wn_q c_q / max(sum wn, 1), i.e. F behind the near layer by its coverage,
//                written without dividing by a small sum wn. Alpha goes out in the alpha channel.
// The weight of a tap at `distance` from the centre of a disc of `radius`: 1 inside, a one-pixel ramp out.
template <class T>
T dof_coverage(T radius, T distance) {
  using std::clamp;
  return clamp(radius - distance + T(1.0), T(0.0), T(1.0));
}
template <class T>
T dof_near_area(T radius) {
  const T h = radius + T(0.5);
  return T(3.14159265) * h * h;
}

}  // namespace shaderwatch::reference
