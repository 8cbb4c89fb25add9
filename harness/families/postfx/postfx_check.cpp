#include "families/postfx/postfx_check.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <random>
#include <sstream>
#include <thread>

#include "common/parallel_bands.h"
#include "summation.h"

namespace shaderwatch {

using reference::Tracked;
using reference::Vec3;

namespace {

// Runs fn(y0, y1, checker) over row bands on every core and merges the checkers in row order, so the
// first failure reported is the first in the image.
CheckResult parallel_rows(uint32_t height, const std::function<void(uint32_t, uint32_t, ElementChecker&, double&)>& fn) {
  const uint32_t threads = std::max(1u, std::min(std::thread::hardware_concurrency(), std::max(1u, height / 8)));
  std::vector<ElementChecker> checkers(threads);
  std::vector<double> squared(threads, 0.0);
  parallel_bands(height, threads, [&](unsigned t, uint64_t y0, uint64_t y1) {
    fn(static_cast<uint32_t>(y0), static_cast<uint32_t>(y1), checkers[t], squared[t]);
  });
  ElementChecker merged;
  double total_squared = 0;
  for (uint32_t t = 0; t < threads; ++t) {
    merged.merge(checkers[t]);
    total_squared += squared[t];
  }
  CheckResult o = merged.outcome();
  o.rmse = o.elements_checked ? std::sqrt(total_squared / o.elements_checked) : 0.0;
  return o;
}

std::string pixel_name(uint32_t x, uint32_t y, int channel) {
  std::ostringstream s;
  s << "pixel (" << x << "," << y << ") channel " << "rgba"[channel];
  return s.str();
}

Vec3<Tracked> apply(const KernelSpec& spec, const Vec3<Tracked>& in, const reference::PostfxParams& p) {
  using reference::ToneOperator;
  const auto op = static_cast<ToneOperator>(spec.tone_operator);
  switch (spec.stage) {
    case PostfxStage::RgbToYxy: return reference::rgb_to_yxy(in);
    case PostfxStage::YxyToRgb: return reference::yxy_to_rgb(in);
    case PostfxStage::ToneMapY: return {reference::tone_map(op, in.a * Tracked(p.exposure), p), in.b, in.c};
    case PostfxStage::AcesHillRgb: {
      const Tracked e(p.exposure);
      return reference::aces_hill(Vec3<Tracked>{in.a * e, in.b * e, in.c * e});
    }
    case PostfxStage::BrightPass: return {reference::bright_pass(in.a, p), in.b, in.c};
    case PostfxStage::LocalGamma: return {reference::local_gamma(in.a), in.b, in.c};
    case PostfxStage::Fused: return reference::fused(op, in, p);
    case PostfxStage::CircleOfConfusion: break;
  }
  return in;
}

uint64_t mix(uint64_t h) {  // splitmix64: a reproducible per-pixel random number
  h += 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

std::vector<float> postfx_input(const KernelSpec& spec, const Problem& problem) {
  const uint64_t n = problem.items();
  std::vector<float> out(problem.data.begin(), problem.data.begin() + n * 4);
  parallel_rows(problem.height, [&](uint32_t y0, uint32_t y1, ElementChecker&, double&) {
  for (uint64_t i = uint64_t{y0} * problem.width; i < uint64_t{y1} * problem.width; ++i) {
    float* px = &out[i * 4];
    switch (spec.input_space) {
      case PixelSpace::Rgb: break;
      case PixelSpace::Yxy:
      case PixelSpace::YxyToneMapped: {
        const auto yxy = reference::rgb_to_yxy(Vec3<double>{px[0], px[1], px[2]});
        double Y = yxy.a;
        if (spec.input_space == PixelSpace::YxyToneMapped) Y = Y / (1.0 + Y);
        px[0] = static_cast<float>(Y);
        px[1] = static_cast<float>(yxy.b);
        px[2] = static_cast<float>(yxy.c);
        break;
      }
      case PixelSpace::RgbDepth: {
        // Left third near (0.5-3 m), middle third exactly in focus (5 m), right third far (8-100 m), and a near
        // band across all three (rows 40-50%): near against focus and against far, as a foreground object.
        const uint64_t x = i % problem.width, y = i / problem.width;
        const double r = (mix(problem.seed * 0x100000001b3ull + i) >> 11) * 0x1.0p-53;
        const bool near_band = 10 * y >= 4 * uint64_t{problem.height} && 10 * y < 5 * uint64_t{problem.height};
        double z = near_band || 3 * x < problem.width ? 0.5 + 2.5 * r
                   : 3 * x < 2 * problem.width    ? 5.0
                                                  : 8.0 + 92.0 * r;
        // Isolated near pixels (1 in 2000) over the focus and far thirds, 0.4-3.2 m: CoCs from the clamp down
        // to a pixel or two, alone in their tiles and straddling tile edges. Without them every tile with a
        // near pixel sat at the clamp, and a composite that misread its tiles gave the same picture.
        const double lone = (mix(problem.seed * 0x9E3779B97F4A7C15ull + 3 * i + 1) >> 11) * 0x1.0p-53;
        if (!near_band && 3 * x >= problem.width && lone < 1.0 / 2000) z = 0.4 + 2.8 * (lone * 2000);
        px[3] = static_cast<float>(z);
        break;
      }
    }
  }
  });
  return out;
}

const reference::PostfxParams& params_of(const DerivedInput& input) {
  return std::any_cast<const reference::PostfxParams&>(input.parameters);
}

reference::PostfxParams postfx_params(const Problem& problem) {
  // Every kernel on one image uses the same parameters: computed once per image (8K: 33M logarithms).
  static std::mutex mutex;
  static std::map<std::tuple<uint64_t, InputKind, uint32_t, uint32_t>, reference::PostfxParams> cache;
  const auto key = std::make_tuple(problem.seed, problem.kind, problem.width, problem.height);
  std::lock_guard lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  reference::NeumaierSum log_sum;
  double y_max = 0;
  const uint64_t n = problem.items();
  for (uint64_t i = 0; i < n; ++i) {
    const float* px = &problem.data[i * 4];
    const double Y = std::max(reference::rgb_to_yxy(Vec3<double>{px[0], px[1], px[2]}).a, 0.0);
    log_sum.add(std::log(1e-4 + Y));
    y_max = std::max(y_max, Y);
  }
  reference::PostfxParams p;
  const double lavg = std::exp(log_sum.value() / static_cast<double>(n));
  p.lavg = static_cast<float>(lavg);
  p.exposure = static_cast<float>(p.key / lavg);
  reference::lottes_constants(p);
  // Drago's Lmax' (an all-black image gets 1: its curve is then never evaluated away from 0).
  reference::drago_constants(p, y_max > 0 ? y_max / lavg : 1.0);
  return cache.emplace(key, p).first->second;
}

reference::LensParams postfx_lens() { return {}; }

namespace {
void store(ExpectedImage& e, uint64_t index, const Tracked& t) {
  e.value[index] = t.value;
  // Rounded up to float so the stored bound never shrinks; an infinite bound stays infinite (and fails).
  const float b = static_cast<float>(2.0 * t.error);
  e.bound[index] = b < 2.0 * t.error ? std::nextafter(b, INFINITY) : b;
}
ExpectedImage sized(uint32_t width, uint32_t height) {
  ExpectedImage e{width, height, {}, {}};
  e.value.resize(uint64_t{width} * height * 4);
  e.bound.resize(e.value.size());
  return e;
}
}  // namespace

ExpectedImage expected_pixel_map(const KernelSpec& spec, uint32_t width, uint32_t height,
                                 const std::vector<float>& input, const reference::PostfxParams& params) {
  const auto lens = postfx_lens();
  ExpectedImage e = sized(width, height);
  parallel_rows(height, [&](uint32_t y0, uint32_t y1, ElementChecker&, double&) {
    for (uint64_t i = uint64_t{y0} * width; i < uint64_t{y1} * width; ++i) {
      const float* in = &input[i * 4];
      if (spec.stage == PostfxStage::CircleOfConfusion) {
        store(e, i * 4, reference::circle_of_confusion(Tracked(in[3]), lens, width));
        for (int c = 1; c < 4; ++c) store(e, i * 4 + c, Tracked(c == 3 ? 1.0 : 0.0));
        continue;
      }
      const auto out = apply(spec, Vec3<Tracked>{Tracked(in[0]), Tracked(in[1]), Tracked(in[2])}, params);
      store(e, i * 4, out.a);
      store(e, i * 4 + 1, out.b);
      store(e, i * 4 + 2, out.c);
      store(e, i * 4 + 3, Tracked(in[3]));  // alpha passes through exactly
    }
  });
  return e;
}

ExpectedImage expected_blur(uint32_t width, uint32_t height, uint32_t radius, const std::vector<float>& input) {
  const auto weights = blur_weights(radius);
  const int r = static_cast<int>(radius);
  auto at = [&](int x, int y) {
    return uint64_t(std::clamp(y, 0, int(height) - 1)) * width + uint64_t(std::clamp(x, 0, int(width) - 1));
  };
  // The x pass, tracked: the y pass's inputs are the GPU's x-pass outputs, within these bounds.
  std::vector<Tracked> first(uint64_t{width} * height * 4);
  parallel_rows(height, [&](uint32_t y0, uint32_t y1, ElementChecker&, double&) {
    for (uint32_t y = y0; y < y1; ++y)
      for (uint32_t x = 0; x < width; ++x)
        for (int c = 0; c < 4; ++c) {
          reference::SerialDot acc;
          for (int i = -r; i <= r; ++i) acc.add_product(Tracked(weights[i + r]), Tracked(input[at(x + i, y) * 4 + c]));
          first[(uint64_t{y} * width + x) * 4 + c] = acc.total();
        }
  });
  ExpectedImage e = sized(width, height);
  parallel_rows(height, [&](uint32_t y0, uint32_t y1, ElementChecker&, double&) {
    for (uint32_t y = y0; y < y1; ++y)
      for (uint32_t x = 0; x < width; ++x)
        for (int c = 0; c < 4; ++c) {
          reference::SerialDot acc;
          for (int i = -r; i <= r; ++i) acc.add_product(Tracked(weights[i + r]), first[at(x, y + i) * 4 + c]);
          store(e, (uint64_t{y} * width + x) * 4 + c, acc.total());
        }
  });
  return e;
}

ExpectedImage expected_dof_composite(uint32_t width, uint32_t height, uint32_t max_radius, const std::vector<float>& input) {
  using reference::dof_coverage;
  using reference::RowOrderedSum;
  const auto lens = postfx_lens();
  const int R = static_cast<int>(max_radius), side = 2 * R + 1;
  const Tracked clamp_radius(R);
  // Per pixel once: its CoC, whether it is near (certainly far, certainly near, or either), and as a near tap its
  // radius and the reciprocal of its disc's area, and its weight and weighted colour where its coverage is certainly
  // 1. Per 16x16 tile: the largest near CoC (how far its near pixels reach).
  // A near weight is bounded as coverage * (1 / area), the staged kernel's form: to first order that bound is
  // coverage / area's (the seed kernel's) plus one ulp of the weight and a product of errors, so it holds for both.
  struct Tap {
    Tracked coc, radius, inverse_area;
  };
  struct NearInside {  // a near tap's weight 1 / area and its weighted colours, where its coverage is certainly 1
    Tracked weight, rgb[3];
  };
  enum Near : uint8_t { kFar, kNear, kEither };
  std::vector<Tap> taps(uint64_t{width} * height);
  std::vector<uint8_t> near(taps.size());
  std::vector<NearInside> inside(taps.size());
  parallel_rows(height, [&](uint32_t y0, uint32_t y1, ElementChecker&, double&) {
    for (uint64_t i = uint64_t{y0} * width; i < uint64_t{y1} * width; ++i) {
      Tap& t = taps[i];
      t.coc = reference::circle_of_confusion(Tracked(input[i * 4 + 3]), lens, width);
      const Tracked is_near = reference::negative(t.coc);
      near[i] = is_near.error > 0 ? kEither : is_near.value == 1 ? kNear : kFar;
      t.radius = min(-t.coc, clamp_radius);
      t.inverse_area = Tracked::exact(1.0, 0.0) / reference::dof_near_area(t.radius);
      if (near[i] == kNear) {
        NearInside& n = inside[i];
        n.weight = t.inverse_area;
        for (int c = 0; c < 3; ++c) n.rgb[c] = n.weight * Tracked(input[i * 4 + c]);
      }
    }
  });
  const uint32_t tiles_x = (width + 15) / 16, tiles_y = (height + 15) / 16;
  std::vector<double> tile_reach(uint64_t{tiles_x} * tiles_y, 0.0);
  for (uint64_t i = 0; i < taps.size(); ++i) {
    double& reach = tile_reach[(i / width / 16) * tiles_x + (i % width) / 16];
    reach = std::max(reach, -taps[i].coc.value);
  }
  std::vector<Tracked> distance(uint64_t(side) * side);
  std::vector<double> farthest(distance.size());  // the largest distance the GPU may compute for the tap
  for (int dy = -R; dy <= R; ++dy)
    for (int dx = -R; dx <= R; ++dx) {
      const uint64_t k = uint64_t(dy + R) * side + dx + R;
      distance[k] = sqrt(Tracked(double(dx * dx + dy * dy)));
      farthest[k] = distance[k].value + distance[k].error;
    }
  // A weight is certainly 0 where the distance exceeds radius + 1 by more than both errors (well under this).
  constexpr double kMargin = 1e-3;
  // A coverage clamp(radius - distance + 1, 0, 1) is certainly 1, exactly as the GPU computes it, where the distance
  // lies inside the radius by more than both errors and this margin for the subtraction's and addition's roundings
  // (a few ulp of at most 2 MAX_RADIUS + 1). Such a far tap adds its colour exactly; such a near tap its NearInside.
  constexpr double kInsideMargin = 1e-4;

  ExpectedImage e = sized(width, height);
  parallel_rows(height, [&](uint32_t y0, uint32_t y1, ElementChecker&, double&) {
    for (uint32_t y = y0; y < y1; ++y) {
      for (uint32_t x = 0; x < width; ++x) {
        const Tracked far_radius = clamp(taps[uint64_t{y} * width + x].coc, Tracked(0.0), clamp_radius);
        const double far_inside = far_radius.value - far_radius.error - kInsideMargin;
        double reach = 0;
        for (uint32_t ty = y / 16 ? y / 16 - 1 : 0; ty <= std::min(y / 16 + 1, tiles_y - 1); ++ty)
          for (uint32_t tx = x / 16 ? x / 16 - 1 : 0; tx <= std::min(x / 16 + 1, tiles_x - 1); ++tx)
            reach = std::max(reach, tile_reach[uint64_t{ty} * tiles_x + tx]);
        // The GPU's window, or one tap wider: in the GPU's order (dy, then dx). Taps skipped here or visited by
        // only one side have weights that are certainly 0, and adding a certain 0 changes nothing.
        const int window = std::min(R, static_cast<int>(std::max(far_radius.value, std::min(reach, double(R))) + kMargin) + 1);
        RowOrderedSum far_sum[3], near_sum[3], far_weight, near_weight;
        for (int dy = -window; dy <= window; ++dy) {
          const uint64_t row = uint64_t(std::clamp(int(y) + dy, 0, int(height) - 1)) * width;
          for (int dx = -window; dx <= window; ++dx) {
            const uint64_t q = row + uint64_t(std::clamp(int(x) + dx, 0, int(width) - 1));
            const uint64_t k = uint64_t(dy + R) * side + dx + R;
            const Tracked& d = distance[k];
            const bool centre = dx == 0 && dy == 0;
            const uint8_t q_near = near[q];
            // Far + focus: near taps left out (the GPU selects 0); where near is uncertain, either value.
            if ((centre || q_near != kNear) && d.value < far_radius.value + 1 + kMargin) {
              if (!centre && q_near == kFar && farthest[k] <= far_inside) {
                far_weight.add_exact(1.0);
                for (int c = 0; c < 3; ++c) far_sum[c].add_exact(input[q * 4 + c]);
              } else {
                Tracked wf = dof_coverage(far_radius, d);
                if (!centre && q_near == kEither) wf = Tracked::exact(taps[q].coc.value < 0 ? 0.0 : wf.value, wf.error + wf.value);
                far_weight.add(wf);
                for (int c = 0; c < 3; ++c) far_sum[c].add(wf * Tracked(input[q * 4 + c]));
              }
            }
            if (q_near == kFar) continue;
            const Tap& t = taps[q];
            if (q_near == kNear && farthest[k] <= t.radius.value - t.radius.error - kInsideMargin) {
              const NearInside& n = inside[q];
              near_weight.add(n.weight);
              for (int c = 0; c < 3; ++c) near_sum[c].add(n.rgb[c]);
            } else if (d.value < t.radius.value + 1 + kMargin) {
              Tracked wn = dof_coverage(t.radius, d) * t.inverse_area;
              if (q_near == kEither) wn = Tracked::exact(t.coc.value < 0 ? wn.value : 0.0, wn.error + wn.value);
              near_weight.add(wn);
              for (int c = 0; c < 3; ++c) near_sum[c].add(wn * Tracked(input[q * 4 + c]));
            }
          }
          far_weight.end_row();
          near_weight.end_row();
          for (int c = 0; c < 3; ++c) {
            far_sum[c].end_row();
            near_sum[c].end_row();
          }
        }
        const Tracked alpha = min(near_weight.total(), Tracked(1.0));
        const uint64_t i = (uint64_t{y} * width + x) * 4;
        for (int c = 0; c < 3; ++c) {
          store(e, i + c, far_sum[c].total() / far_weight.total() * (Tracked(1.0) - alpha) +
                              near_sum[c].total() / max(near_weight.total(), Tracked(1.0)));
        }
        store(e, i + 3, alpha);
      }
    }
  });
  return e;
}

CheckResult compare_image(const ExpectedImage& expected, std::span<const float> gpu) {
  const uint32_t width = expected.width;
  return parallel_rows(expected.height, [&](uint32_t y0, uint32_t y1, ElementChecker& checker, double& squared) {
    for (uint64_t i = uint64_t{y0} * width * 4; i < uint64_t{y1} * width * 4; ++i) {
      const double diff = gpu[i] - expected.value[i];
      if (std::isfinite(diff)) squared += diff * diff;
      checker.check_lazy(expected.value[i], gpu[i], expected.bound[i], [&] {
        const uint64_t pixel = i / 4;
        return pixel_name(static_cast<uint32_t>(pixel % width), static_cast<uint32_t>(pixel / width), static_cast<int>(i % 4));
      });
    }
  });
}

CheckResult check_dof_tiles(uint32_t width, uint32_t height, const std::vector<float>& depth, uint32_t tiles_x,
                        uint32_t tiles_y, const std::vector<float>& gpu) {
  const auto lens = postfx_lens();
  ElementChecker checker;
  for (uint32_t ty = 0; ty < tiles_y; ++ty) {
    for (uint32_t tx = 0; tx < tiles_x; ++tx) {
      double near_max = 0, far_min = INFINITY, near_err = 0, far_err = 0;
      uint64_t near = 0, far = 0;
      bool ambiguous = false;
      for (uint32_t y = ty * 16; y < std::min(height, ty * 16 + 16); ++y) {
        for (uint32_t x = tx * 16; x < std::min(width, tx * 16 + 16); ++x) {
          const Tracked coc = reference::circle_of_confusion(Tracked(depth[(uint64_t{y} * width + x) * 4 + 3]), lens, width);
          // A CoC within its error of 0 could land on either side on the GPU: no sound expectation.
          if (coc.value != 0 && std::fabs(coc.value) <= coc.error) ambiguous = true;
          if (coc.value < 0) {
            ++near;
            near_max = std::max(near_max, -coc.value);
            near_err = std::max(near_err, coc.error);
          } else if (coc.value > 0) {
            ++far;
            far_min = std::min(far_min, coc.value);
            far_err = std::max(far_err, coc.error);
          }
        }
      }
      const float* got = &gpu[(uint64_t{ty} * tiles_x + tx) * 4];
      auto name = [&](const char* what) { return "tile (" + std::to_string(tx) + "," + std::to_string(ty) + ") " + what; };
      const double inf = ambiguous ? INFINITY : 0;  // an infinite bound never passes
      checker.check_lazy(near_max, got[0], 2 * near_err + inf, [&] { return name("max near CoC"); });
      checker.check_lazy(far ? far_min : 0.0, got[1], 2 * far_err + inf, [&] { return name("min far CoC"); });
      checker.check_lazy(double(near), got[2], inf, [&] { return name("near pixels"); });
      checker.check_lazy(double(far), got[3], inf, [&] { return name("far pixels"); });
    }
  }
  return checker.outcome();
}

}  // namespace shaderwatch
