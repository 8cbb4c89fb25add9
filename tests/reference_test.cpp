// The CPU references and the catalog's error model, tested on their own: known sums, data where naive
// float summation fails, and the bounds kernels.md derives.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>
#include <vector>

#include "boids.h"
#include "catalog.h"
#include "luminance.h"
#include "summation.h"

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
  // kernels.md's example: h ~ 26 gives a relative bound of ~7e-6 (2 gamma_h ~ 6.2e-6).
  EXPECT_NEAR(2 * error_gamma(26), 6.2e-6, 0.1e-6);
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
  const std::regex shape("^(lum|boids)/[a-z0-9_]+$");
  size_t negative_controls = 0;
  for (const auto& k : catalog()) {
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate " << k.name;
    EXPECT_TRUE(std::regex_match(k.name, shape)) << k.name;
    EXPECT_FALSE(k.shaders.empty()) << k.name;
    EXPECT_TRUE(k.roundings) << k.name;
    negative_controls += k.negative_control.has_value();
  }
  EXPECT_EQ(negative_controls, 1u);
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
