// Post-processing formulas, the same expressions in the same order as reference/postfx.h (which also
// derives each pixel's error bound from them). Shared by postfx_pixel.comp's stages.
layout(push_constant) uniform Params {
  uint width;
  uint height;
  uint pad0, pad1;
  float exposure;     // key / Lavg
  float white_point;  // Reinhard extended Lw
  float lavg;         // bright-pass
  float key;
  float threshold;
  float offset;
  float lottes_b;
  float lottes_c;
  // depth of field (circle of confusion)
  float focal_length;
  float f_stop;
  float focus_distance;
  float pixels_per_metre;  // image width / sensor width
  // Drago
  float drago_lmax;
  float drago_scale;
} params;

vec3 rgb_to_xyz(vec3 c) {
  return vec3(0.4124564 * c.r + 0.3575761 * c.g + 0.1804375 * c.b,
              0.2126729 * c.r + 0.7151522 * c.g + 0.0721750 * c.b,
              0.0193339 * c.r + 0.1191920 * c.g + 0.9503041 * c.b);
}
vec3 xyz_to_rgb(vec3 c) {
  return vec3(3.2404542 * c.x - 1.5371385 * c.y - 0.4985314 * c.z,
              -0.9692660 * c.x + 1.8760108 * c.y + 0.0415560 * c.z,
              0.0556434 * c.x - 0.2040259 * c.y + 1.0572252 * c.z);
}
// (Y, x, y); black gets D65's chromaticity.
vec3 rgb_to_yxy(vec3 rgb) {
  const vec3 xyz = rgb_to_xyz(rgb);
  const float sum = xyz.x + xyz.y + xyz.z;
  if (!(sum > 0.0)) return vec3(xyz.y, 0.3127, 0.3290);
  return vec3(xyz.y, xyz.x / sum, xyz.y / sum);
}
vec3 yxy_to_rgb(vec3 Yxy) {
  const float Y = Yxy.x, x = Yxy.y, y = Yxy.z;
  if (!(y > 0.0)) return vec3(0.0);
  const float X = x * Y / y;
  const float Z = (1.0 - x - y) * Y / y;
  return xyz_to_rgb(vec3(X, Y, Z));
}

float hable_curve(float x) {
  const float A = 0.15, B = 0.50, C = 0.10, D = 0.20, E = 0.02, F = 0.30;
  return (x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F) - E / F;
}
float pow_nonneg(float x, float y) { return x == 0.0 ? 0.0 : pow(x, y); }

// OPERATOR numbers: reference::ToneOperator.
float tone_map(int op, float x) {
  switch (op) {
    case 0:
      return x / (1.0 + x);
    case 1:
      return x * (1.0 + x / (params.white_point * params.white_point)) / (1.0 + x);
    case 2:
      return hable_curve(2.0 * x) / hable_curve(11.2);
    case 3:
      return clamp(x * (2.51 * x + 0.03) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
    case 5: {
      const float xp = max(0.0, x - 0.004);
      return xp * (6.2 * xp + 0.5) / (xp * (6.2 * xp + 1.7) + 0.06);
    }
    case 6:
      return pow_nonneg(x, 1.6) / (pow_nonneg(x, 1.5632) * params.lottes_b + params.lottes_c);
    case 7: {
      const float P = 1.0, a = 1.0, m = 0.22, l = 0.4, c = 1.33, b = 0.0;
      const float l0 = (P - m) * l / a;
      const float S0 = m + l0;
      const float S1 = m + a * l0;
      const float CP = -(a * P / (P - S1)) / P;
      const float w0 = 1.0 - smoothstep(0.0, m, x);
      const float w2 = step(m + l0, x);
      const float w1 = 1.0 - w0 - w2;
      const float toe = m * pow_nonneg(x / m, c) + b;
      const float linear = m + a * (x - m);
      const float shoulder = P - (P - S1) * exp(CP * (x - S0));
      return toe * w0 + linear * w1 + shoulder * w2;
    }
    case 8: {
      const float l = x / params.key;
      return params.drago_scale * log(1.0 + l) / log(2.0 + 8.0 * pow_nonneg(l / params.drago_lmax, 0.23446525));
    }
    case 9: {
      const float w = 10.0, b = 0.1, t = 0.7, s = 0.8, c = 2.0;
      const float l = x / params.key;
      const float k = (1.0 - t) * (c - b) / ((1.0 - s) * (w - c) + (1.0 - t) * (c - b));
      const float mapped = l < c ? k * (1.0 - t) * (l - b) / (c - (1.0 - t) * b - t * l)
                                 : (1.0 - k) * (l - c) / (s * l + (1.0 - s) * w - c) + k;
      return clamp(mapped, 0.0, 1.0);
    }
  }
  return x;
}

float aces_hill_curve(float x) {
  return (x * (x + 0.0245786) - 0.000090537) / (x * (0.983729 * x + 0.4329510) + 0.238081);
}
vec3 aces_hill(vec3 c) {
  const vec3 v = vec3(0.59719 * c.r + 0.35458 * c.g + 0.04823 * c.b,
                      0.07600 * c.r + 0.90834 * c.g + 0.01566 * c.b,
                      0.02840 * c.r + 0.13383 * c.g + 0.83777 * c.b);
  const vec3 f = vec3(aces_hill_curve(v.x), aces_hill_curve(v.y), aces_hill_curve(v.z));
  return vec3(1.60475 * f.x - 0.53108 * f.y - 0.07367 * f.z,
              -0.10208 * f.x + 1.10813 * f.y - 0.00605 * f.z,
              -0.00327 * f.x - 0.07276 * f.y + 1.07602 * f.z);
}

float bright_pass(float Y) {
  const float c1 = max(Y * params.key / (params.lavg + 0.001) - params.threshold, 0.0);
  return c1 / (params.offset + c1);
}

float local_gamma(float L) {
  const float g = 0.444 + 0.045 * log(L + 0.6034);
  return pow_nonneg(L, g);
}

float circle_of_confusion(float z) {
  const float f = params.focal_length, zf = params.focus_distance;
  const float aperture = f / params.f_stop;
  const float coc = aperture * f * (z - zf) / (z * (zf - f));
  return coc * params.pixels_per_metre;
}
