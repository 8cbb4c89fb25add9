// The CPU references and the catalog's error model, tested on their own: known sums, data where naive
// float summation fails, and Higham's bounds for it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <regex>
#include <set>
#include <vector>

#include "boids.h"
#include "catalog.h"
#include "luminance.h"
#include "postfx.h"
#include "summation.h"
#include "tracked.h"

using namespace shaderwatch;
using namespace shaderwatch::reference;

TEST(NeumaierSum, KeepsSmallTermsThatNaiveSummationLoses) {
  NeumaierSum s;
  double naive = 0;
  for (double x : {1.0, 1e100, 1.0, -1e100}) {
    s.add(x);
    naive += x;
  }
  EXPECT_EQ(naive, 0.0);  // the case the compensation exists for
  EXPECT_EQ(s.value(), 2.0);
}

TEST(NeumaierSum, MillionTenthsSumToOneHundredThousand) {
  NeumaierSum s;
  for (int i = 0; i < 1000000; ++i) s.add(0.1);
  EXPECT_NEAR(s.value(), 100000.0, 1e-9);
}

TEST(Gamma, MatchesHighamDefinitionAndSaturates) {
  const double u = std::ldexp(1.0, -23);
  EXPECT_DOUBLE_EQ(error_gamma(1), u / (1 - u));
  EXPECT_DOUBLE_EQ(error_gamma(26), 26 * u / (1 - 26 * u));
  EXPECT_TRUE(std::isinf(error_gamma(8388608.0)));  // h u = 1: the bound says nothing
  // The error analysis' example: h ~ 26 gives a relative bound of ~7e-6 (2 gamma_h ~ 6.2e-6).
  EXPECT_NEAR(2 * error_gamma(26), 6.2e-6, 0.1e-6);
}

TEST(Gamma, ProbableBoundGrowsWithTheRootOfTheRoundings) {
  const double u = std::ldexp(1.0, -23);
  EXPECT_NEAR(probable_error_gamma(4095) / (9 * std::sqrt(4095.0) * u), 1.0, 1e-4);
  EXPECT_NEAR(error_gamma(4095) / probable_error_gamma(4095), 7.1, 0.1) << "far tighter on a long serial sum";
  EXPECT_GT(probable_error_gamma(26), error_gamma(26)) << "looser than the worst case on a short tree: unused there";
}

// Serial float32 sums (round to nearest, as this CPU and every GPU tested round) of 4096 values uniform in
// [-100, 100], as boids/single_invocation adds them: the rounding error of every trial stays far inside the
// probabilistic bound (2 x 9 sqrt(h) u sum|x|, about 28 here), while dropping one value larger than that, inside
// the worst-case bound, is beyond it every time. (The bench checks x, y and z: one of three is that large in 98%.)
TEST(Gamma, ProbableBoundHoldsForFloatSumsAndSeesOneLostValue) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pos(-100.0f, 100.0f);
  constexpr int kN = 4096, kTrials = 300;
  const double h = kN - 1;
  double worst_rounding = 0;
  int large_lost = 0, large_lost_seen = 0, lost_within_worst_case = 0;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<float> x(kN);
    for (auto& v : x) v = pos(rng);
    NeumaierSum exact, abs_sum;
    for (float v : x) exact.add(v), abs_sum.add(std::fabs(v));
    const int lost = static_cast<int>(rng() % kN);
    volatile float sum = 0.0f, without = 0.0f;  // volatile: float additions, in order
    for (int i = 0; i < kN; ++i) {
      sum = sum + x[i];
      if (i != lost) without = without + x[i];
    }
    const double probable = 2 * probable_error_gamma(h) * abs_sum.value(), worst = 2 * error_gamma(h) * abs_sum.value();
    worst_rounding = std::max(worst_rounding, std::fabs(sum - exact.value()) / probable);
    if (std::fabs(x[lost]) > 1.25 * probable) {
      ++large_lost;
      large_lost_seen += std::fabs(without - exact.value()) > probable;
    }
    lost_within_worst_case += std::fabs(without - exact.value()) <= worst;
  }
  EXPECT_LT(worst_rounding, 0.25) << "rounding alone, worst of " << kTrials << " trials, against the probabilistic bound";
  EXPECT_EQ(lost_within_worst_case, kTrials) << "the worst case cannot see one lost value";
  EXPECT_GE(large_lost, kTrials / 2);
  EXPECT_EQ(large_lost_seen, large_lost) << "a lost value over 1.25 x the probabilistic bound always shows";
}

TEST(Luminance, UsesTheFloatWeightsAndTracksMagnitude) {
  const float rgba[4] = {1.0f, -2.0f, 4.0f, 123.0f};
  const auto p = pixel_luminance(rgba);
  const double w0 = 0.2125f, w1 = 0.7154f, w2 = 0.0721f;
  EXPECT_DOUBLE_EQ(p.value, w0 - 2 * w1 + 4 * w2);  // alpha has weight 0
  EXPECT_DOUBLE_EQ(p.magnitude, w0 + 2 * w1 + 4 * w2);
}

TEST(Luminance, TileSumsAddUpToTheTotalAndMinMaxAreExact) {
  const uint32_t w = 37, h = 11;
  std::vector<float> img(w * h * 4);
  for (size_t i = 0; i < img.size(); ++i) img[i] = static_cast<float>((i * 7919) % 101) / 7.0f;
  const auto tiles = reduce_luminance(img, w, h, 3 * 2, [](uint32_t x, uint32_t y) { return (y / 8) * 3 + x / 16; });
  const auto total = total_luminance(img, w, h);
  EXPECT_EQ(merge(tiles).pixels, uint64_t{w} * h);
  EXPECT_NEAR(merge(tiles).sum, total.sum, 1e-12 * total.abs_sum);
  double lo = INFINITY, hi = -INFINITY;
  for (uint32_t i = 0; i < w * h; ++i) {
    lo = std::min(lo, pixel_luminance(&img[i * 4]).value);
    hi = std::max(hi, pixel_luminance(&img[i * 4]).value);
  }
  EXPECT_EQ(total.min, lo);
  EXPECT_EQ(total.max, hi);
}

TEST(Luminance, ExactWhereANaiveFloatSumIsWrong) {
  // One bright pixel and 2^20 dim ones: a float running sum stops growing once the small terms fall
  // below half an ulp of the total. The reference must still be exact (all terms are dyadic here).
  const uint32_t w = 1024, h = 1025;
  std::vector<float> img(size_t{w} * h * 4, 0.0f);
  img[0] = 1 << 26;  // red only
  for (size_t i = 1; i < size_t{w} * h; ++i) img[i * 4 + 0] = 1.0f;
  const auto total = total_luminance(img, w, h);
  const double wr = 0.2125f;
  EXPECT_EQ(total.sum, wr * (double(1 << 26) + double(w) * h - 1));
  float naive = 0;
  for (size_t i = 0; i < size_t{w} * h; ++i) naive += static_cast<float>(pixel_luminance(&img[i * 4]).value);
  EXPECT_GT(std::fabs(naive - total.sum) / total.sum, 1e-3);  // the failure the reference avoids
}

TEST(Luminance, RejectsShortDataAndBadAssignments) {
  std::vector<float> img(4 * 4 * 4, 1.0f);
  EXPECT_THROW(reduce_luminance(img, 5, 4, 1, [](uint32_t, uint32_t) { return 0u; }), std::invalid_argument);
  EXPECT_THROW(reduce_luminance(img, 4, 4, 2, [](uint32_t, uint32_t) { return 2u; }), std::out_of_range);
}

TEST(Boids, MeanMinMaxOfKnownPositions) {
  std::vector<float> pos;
  for (int i = 1; i <= 100; ++i) pos.insert(pos.end(), {float(i), float(-i), 0.5f, 0.0f});
  const auto s = boids_stats(pos, 100);
  EXPECT_EQ(s.sum[0], 5050.0);
  EXPECT_EQ(s.mean()[1], -50.5);
  EXPECT_EQ(s.abs_sum[1], 5050.0);
  EXPECT_EQ(s.min[0], 1.0);
  EXPECT_EQ(s.max[1], -1.0);
  EXPECT_EQ(s.max[2], 0.5);
  EXPECT_THROW(boids_stats(pos, 0), std::invalid_argument);
  EXPECT_THROW(boids_stats(pos, 101), std::invalid_argument);
}

TEST(Catalog, NamesAreUniqueStableAndComplete) {
  std::set<std::string> names;
  const std::regex shape("^(lum|boids|postfx)/[a-z0-9_]+$");
  for (const auto& k : catalog()) {
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate " << k.name;
    EXPECT_TRUE(std::regex_match(k.name, shape)) << k.name;
    EXPECT_FALSE(k.shaders.empty()) << k.name;
    EXPECT_TRUE(k.roundings) << k.name;
  }
  // The seed's variants (1-8), the modern ones (9-12) and the boids techniques (13-18).
  for (const char* n : {"lum/interleaved_256", "lum/sequential_256", "lum/unrolled_subgroup_256", "lum/unrolled_literal_256",
                        "lum/prefetch2_64", "lum/prefetch2_128", "lum/prefetch4_16", "lum/prefetch4_64",
                        "lum/prefetch4_256", "lum/prefetch4_1024", "lum/prefetch4_2xshared_1024", "lum/fetch16_1024",
                        "lum/subgroup_add_256", "lum/grid_stride_vec4", "lum/single_pass_atomic",
                        "lum/stats_sum_log_min_max", "boids/blend_1x1", "boids/mip_chain", "boids/single_invocation",
                        "boids/two_pass_rows", "boids/two_pass_transposed", "boids/groupshared",
                        "boids/groupshared_subgroup", "boids/minmax_subgroup", "boids/minmax_atomic"}) {
    EXPECT_NO_THROW(find_kernel(n)) << n;
  }
  EXPECT_THROW(find_kernel("lum/nope"), std::invalid_argument);
}

TEST(Catalog, TilesGiveTheSeedsPartialImagesAt1080p) {
  auto partial = [](const char* name) {
    const auto& k = find_kernel(name);
    return std::pair{(1920 + k.tile_x - 1) / k.tile_x, (1080 + k.tile_y - 1) / k.tile_y};
  };
  EXPECT_EQ(partial("lum/sequential_256"), (std::pair{120u, 68u}));
  EXPECT_EQ(partial("lum/prefetch2_128"), (std::pair{120u, 68u}));
  EXPECT_EQ(partial("lum/prefetch4_64"), (std::pair{120u, 68u}));
  EXPECT_EQ(partial("lum/prefetch4_256"), (std::pair{60u, 34u}));
  EXPECT_EQ(partial("lum/prefetch4_1024"), (std::pair{30u, 17u}));
  EXPECT_EQ(partial("lum/fetch16_1024"), (std::pair{15u, 9u}));
}

TEST(Catalog, RoundingCountsFollowTheErrorAnalysis) {
  const ErrorContext nvidia{32, 1920 * 1080, 120 * 68};
  // 3 (dot) + 0 serial + log2(256) tree.
  EXPECT_EQ(find_kernel("lum/sequential_256").roundings(nvidia), 3 + 8);
  // 3 + (4 - 1) serial + log2(256).
  EXPECT_EQ(find_kernel("lum/prefetch4_256").roundings(nvidia), 3 + 3 + 8);
  // 3 + (8 - 1) per slot + log2(2048) over two slots per thread.
  EXPECT_EQ(find_kernel("lum/fetch16_1024").roundings(nvidia), 3 + 7 + 11);
  // subgroupAdd on 32 lanes: 5 + (8 subgroups in one lane round: 0) + 5.
  EXPECT_EQ(workgroup_sum_roundings(256, 32), 10);
  // lavapipe's 8 lanes: 3 + (32 partials over 8 lanes: 3 serial) + 3.
  EXPECT_EQ(workgroup_sum_roundings(256, 8), 9);
  EXPECT_EQ(find_kernel("boids/blend_1x1").roundings({32, 4096, 1}), 4095);
  EXPECT_EQ(find_kernel("boids/two_pass_rows").roundings({32, 4096, 1}), 63 + 63);
  EXPECT_EQ(find_kernel("boids/minmax_atomic").roundings({32, 4096, 1}), 0);
  EXPECT_EQ(mip_chain_side(4096), 64u);
  EXPECT_EQ(mip_chain_side(4097), 128u);
  EXPECT_EQ(mip_chain_side(1), 1u);
  EXPECT_EQ(tree_levels(1), 0u);
  EXPECT_EQ(tree_levels(1000), 10u);
}

// --- Post-processing references and their error tracking ---

// The formulas' step and smoothstep for float, so they also compile for a float32 CPU evaluation.
namespace shaderwatch::reference {
float step(float edge, float x) { return x < edge ? 0.0f : 1.0f; }
float smoothstep(float e0, float e1, float x) {
  const float t = std::clamp((x - e0) / (e1 - e0), 0.0f, 1.0f);
  return t * t * (3.0f - 2.0f * t);
}
}  // namespace shaderwatch::reference

namespace {
// A float32 evaluation on the CPU (round to nearest, libm within 1 ulp) is one of the GPUs Vulkan allows:
// it must land within the tracked bound of every formula.
template <class F>
void expect_float_within_bound(const char* what, F formula, double lo, double hi, int steps) {
  for (int i = 0; i <= steps; ++i) {
    const double x = lo * std::pow(hi / lo, double(i) / steps);
    const float xf = static_cast<float>(x);
    const Tracked t = formula(Tracked(xf));
    const float f = formula(xf);
    EXPECT_TRUE(std::isfinite(t.error)) << what << " at " << x;
    EXPECT_LE(std::fabs(double(f) - t.value), t.error) << what << " at x = " << x << ": float " << f << " vs " << t.value;
  }
}
}  // namespace

TEST(Tracked, BoundsCoverFloatEvaluationOfEveryToneOperator) {
  PostfxParams p;
  lottes_constants(p);
  drago_constants(p, 500.0);
  for (auto op : {ToneOperator::Reinhard, ToneOperator::ReinhardExtended, ToneOperator::Hable,
                  ToneOperator::AcesNarkowicz, ToneOperator::HejlBurgessDawson, ToneOperator::Lottes,
                  ToneOperator::Uchimura, ToneOperator::Drago, ToneOperator::Day}) {
    expect_float_within_bound(
        "tone_map", [&](auto x) { return tone_map(op, x, p); }, 1e-4, 1e4, 2000);
  }
  expect_float_within_bound("local_gamma", [](auto x) { return local_gamma(x); }, 1e-6, 1.0, 2000);
  expect_float_within_bound("bright_pass", [&](auto x) { return bright_pass(x, p); }, 1e-3, 1e5, 2000);
}

TEST(Tracked, AddsUpRoundingsAndRejectsWhatItCannotBound) {
  Tracked sum(0.0);
  float f = 0;
  for (int i = 1; i <= 1000; ++i) {
    sum += Tracked(1.0 / i);
    f += static_cast<float>(1.0 / i);
  }
  EXPECT_LE(std::fabs(f - sum.value), sum.error);
  EXPECT_LT(sum.error, 1000 * 2 * kUlp * sum.value);  // no looser than a crude n u sum|x|
  // log near 0 with an uncertain argument: no finite bound, so the check fails rather than guesses.
  EXPECT_TRUE(std::isinf(log(Tracked::exact(1e-9, 2e-9)).error));
  // step: exactly at the edge within the error, either side is possible.
  EXPECT_EQ(step(Tracked(0.5), Tracked::exact(0.5, 1e-7)).error, 1.0);
  EXPECT_EQ(step(Tracked(0.5), Tracked::exact(0.6, 1e-7)).error, 0.0);
  // select_below: near the edge the bound covers the branch not taken.
  const Tracked near_edge = select_below(Tracked::exact(0.5, 1e-7), Tracked(0.5), Tracked(1.0), Tracked(3.0));
  EXPECT_EQ(near_edge.value, 3.0);
  EXPECT_GE(near_edge.error, 2.0);
  EXPECT_EQ(select_below(Tracked::exact(0.4, 1e-7), Tracked(0.5), Tracked(1.0), Tracked(3.0)).error, 0.0);
}

// The gathers' sums (depth of field, blur) are bounded in closed form rather than Tracked operation by operation:
// the same value, a bound at least as large as Tracked's, a float evaluation inside it, and not much looser.
TEST(Tracked, ClosedFormSumsBoundWhatTrackedBoundsAtLeastAsWidely) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> value(-2.0, 40.0), weight(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    // 17 rows of 17 taps, as a depth-of-field window: weight * colour terms, some weights exactly 1.
    Tracked tracked(0.0);
    RowOrderedSum rows;
    float f = 0;
    for (int row = 0; row < 17; ++row) {
      for (int tap = 0; tap < 17; ++tap) {
        const float c = static_cast<float>(value(rng)), w = trial % 2 && tap % 3 ? 1.0f : static_cast<float>(weight(rng));
        const Tracked term = w == 1.0f ? Tracked(c) : Tracked(w) * Tracked(c);
        tracked += term;
        if (w == 1.0f)
          rows.add_exact(c);
        else
          rows.add(term);
        f += w * c;
      }
      rows.end_row();
    }
    EXPECT_EQ(rows.total().value, tracked.value);
    EXPECT_GE(rows.total().error, tracked.error);
    EXPECT_LE(rows.total().error, 1.5 * tracked.error) << "closed form far looser than op by op";
    EXPECT_LE(std::fabs(f - rows.total().value), rows.total().error);
    // A 33-tap convolution of tracked inputs, as the blur's second pass.
    Tracked acc(0.0);
    SerialDot dot;
    float g = 0;
    for (int i = 0; i < 33; ++i) {
      const Tracked w(weight(rng) / 8), x = Tracked::exact(static_cast<float>(value(rng)), 1e-6);
      acc += w * x;
      dot.add_product(w, x);
      g += static_cast<float>(w.value) * static_cast<float>(x.value);
    }
    EXPECT_EQ(dot.total().value, acc.value);
    EXPECT_GE(dot.total().error, acc.error);
    EXPECT_LE(dot.total().error, 1.01 * acc.error + 1e-30);
    EXPECT_LE(std::fabs(g - dot.total().value), dot.total().error);
  }
}

TEST(Postfx, ColourSpaceRoundTripIsIdentityAndBlackIsGuarded) {
  const Vec3<double> rgb{0.2, 1.5, 40.0};
  const auto back = yxy_to_rgb(rgb_to_yxy(rgb));
  // Lindbloom's 7-digit matrices are each other's inverse to about 1e-7 of the largest channel.
  EXPECT_NEAR(back.a, rgb.a, 1e-7 * 40);
  EXPECT_NEAR(back.b, rgb.b, 1e-7 * 40);
  EXPECT_NEAR(back.c, rgb.c, 1e-7 * 40);
  const auto black = rgb_to_yxy(Vec3<double>{0, 0, 0});
  EXPECT_EQ(black.a, 0.0);
  EXPECT_EQ(black.b, 0.3127);  // D65 chromaticity, not 0/0
  const auto white = rgb_to_yxy(Vec3<double>{1, 1, 1});
  EXPECT_NEAR(white.b, 0.3127, 1e-4);  // sRGB white is D65
  EXPECT_NEAR(white.c, 0.3290, 1e-4);
  EXPECT_NEAR(white.a, 1.0, 1e-6);
}

TEST(Postfx, OperatorsMatchPublishedValues) {
  PostfxParams p;
  lottes_constants(p);
  EXPECT_DOUBLE_EQ(tone_map(ToneOperator::Reinhard, 1.0, p), 0.5);
  EXPECT_NEAR(tone_map(ToneOperator::AcesNarkowicz, 1e6, p), 1.0, 1e-12);  // clamped
  EXPECT_NEAR(tone_map(ToneOperator::Hable, 5.6, p), 1.0, 1e-12);           // f(2 * 5.6) / f(W)
  EXPECT_NEAR(tone_map(ToneOperator::Lottes, 0.18, p), 0.267, 1e-6);        // midIn -> midOut
  // Drago maps the image's brightest pixel (L' = Lmax') to 0.01 Ldmax = 0.8, black to 0.
  drago_constants(p, 500.0);
  EXPECT_NEAR(tone_map(ToneOperator::Drago, p.key * 500.0, p), 0.8, 1e-6);
  EXPECT_EQ(tone_map(ToneOperator::Drago, 0.0, p), 0.0);
  // Day: toe and shoulder meet at c = 2 with value k = 0.3 * 1.9 / (0.2 * 8 + 0.3 * 1.9); w = 10 maps to 1;
  // below the black point b = 0.1 the toe is negative and clamped to 0.
  const double k = 0.3 * 1.9 / (0.2 * 8 + 0.3 * 1.9);
  EXPECT_NEAR(tone_map(ToneOperator::Day, p.key * 2.0, p), k, 1e-6);
  EXPECT_NEAR(tone_map(ToneOperator::Day, p.key * 2.0 * (1 - 1e-9), p), k, 1e-6);
  EXPECT_NEAR(tone_map(ToneOperator::Day, p.key * 10.0, p), 1.0, 1e-6);
  EXPECT_EQ(tone_map(ToneOperator::Day, p.key * 0.05, p), 0.0);
  EXPECT_NEAR(local_gamma(0.0), 0.0, 0.0);
  // gamma_v from 0.421 at L = 0 to about 0.465 at L = 1 (the seed's range).
  EXPECT_NEAR(0.444 + 0.045 * std::log(0.6034), 0.421, 1e-3);
  EXPECT_NEAR(0.444 + 0.045 * std::log(1.6034), 0.465, 1e-3);
  // Circle of confusion: zero at the focus distance, negative nearer, positive farther.
  const LensParams lens;
  EXPECT_EQ(circle_of_confusion(5.0, lens, 1920), 0.0);
  EXPECT_LT(circle_of_confusion(1.0, lens, 1920), 0.0);
  EXPECT_GT(circle_of_confusion(50.0, lens, 1920), 0.0);
}
