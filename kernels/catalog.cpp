// The catalog's entries, family by family (catalog.h says what an entry is), and what the harness asks of them.
#include "catalog.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace shaderwatch {

namespace {
constexpr uint32_t kSubgroupBasic = 0x1, kSubgroupVote = 0x2, kSubgroupArithmetic = 0x4, kSubgroupBallot = 0x8;
constexpr double kDotRoundings = 3;  // dot(rgba, weights): three products and two additions

// Seed-style tree kernel: FETCH_X x FETCH_Y pixels per invocation into SLOTS shared slots.
KernelSpec tree(std::string name, std::string description, uint32_t gx, uint32_t gy, uint32_t fx, uint32_t fy,
                uint32_t slots, int addressing, int tail) {
  const uint32_t per_slot = fx * fy / slots;
  const uint32_t elements = gx * gy * slots;
  return KernelSpec{
      .name = std::move(name),
      .family = Family::Luminance,
      .method = Method::LumTiles,
      .description = std::move(description),
      .operation = "luminance sum",
      .shaders = {{"lum_tree.comp",
                   {{"GROUP_X", std::to_string(gx)},
                    {"GROUP_Y", std::to_string(gy)},
                    {"FETCH_X", std::to_string(fx)},
                    {"FETCH_Y", std::to_string(fy)},
                    {"SLOTS", std::to_string(slots)},
                    {"ADDRESSING", std::to_string(addressing)},
                    {"TAIL", std::to_string(tail)}}}},
      .group_x = gx,
      .group_y = gy,
      .tile_x = gx * fx,
      .tile_y = gy * fy,
      .subgroup_ops = tail == 1 ? (kSubgroupBasic | kSubgroupBallot) : kSubgroupBasic,
      .roundings = [=](const ErrorContext&) { return kDotRoundings + (per_slot - 1) + tree_levels(elements); },
  };
}

// Modern tile kernels (lum_subgroup.comp and friends): FETCH_X pixels per invocation, then workgroup_sum.
double subgroup_tile_roundings(uint32_t threads, uint32_t fetch, uint32_t subgroup_size) {
  return kDotRoundings + (fetch - 1) + workgroup_sum_roundings(threads, subgroup_size);
}

KernelSpec subgroup_tiles(std::string name, std::string description, Method method, std::string shader, uint32_t gx,
                          uint32_t gy, uint32_t fx) {
  const uint32_t threads = gx * gy;
  KernelSpec k{
      .name = std::move(name),
      .family = Family::Luminance,
      .method = method,
      .description = std::move(description),
      .operation = "luminance sum",
      .shaders = {{std::move(shader),
                   {{"GROUP_X", std::to_string(gx)}, {"GROUP_Y", std::to_string(gy)}, {"FETCH_X", std::to_string(fx)}}}},
      .group_x = gx,
      .group_y = gy,
      .tile_x = gx * fx,
      .tile_y = gy,
      .subgroup_ops = kSubgroupBasic | kSubgroupArithmetic,
      .roundings = [=](const ErrorContext& c) { return subgroup_tile_roundings(threads, fx, c.subgroup_size); },
  };
  if (method == Method::LumSinglePass) {
    // The total adds, in the last group, ceil(groups / threads) tile sums per invocation, then workgroup_sum.
    k.total_roundings = [=](const ErrorContext& c) {
      return subgroup_tile_roundings(threads, fx, c.subgroup_size) + (ceil_div(c.groups, threads) - 1) +
             workgroup_sum_roundings(threads, c.subgroup_size);
    };
  }
  return k;
}

KernelSpec boids(std::string name, std::string description, Method method, std::vector<ShaderRef> shaders,
                 uint32_t group, std::function<double(const ErrorContext&)> roundings, uint32_t subgroup_ops = 0) {
  return KernelSpec{.name = std::move(name),
                    .family = Family::Boids,
                    .method = method,
                    .description = std::move(description),
                    .operation = method == Method::BoidsMinMaxSubgroup || method == Method::BoidsMinMaxAtomic ||
                                         method == Method::BoidsGridMinMax
                                     ? "boids min and max"
                                     : "boids average",
                    .shaders = std::move(shaders),
                    .group_x = group,
                    .subgroup_ops = subgroup_ops,
                    .roundings = std::move(roundings)};
}

// The operation a per-pixel post-processing stage computes: every tone mapping operator is one.
std::string pixel_operation(PostfxStage stage) {
  switch (stage) {
    case PostfxStage::RgbToYxy: return "RGB to Yxy";
    case PostfxStage::YxyToRgb: return "Yxy to RGB";
    case PostfxStage::ToneMapY:
    case PostfxStage::AcesHillRgb: return "tone mapping";
    case PostfxStage::BrightPass: return "bright pass";
    case PostfxStage::LocalGamma: return "local gamma";
    case PostfxStage::Fused: return "fused tone-mapping pipeline";
    case PostfxStage::CircleOfConfusion: return "circle of confusion";
  }
  return "";
}

// The luminance family (seeds 000, 002, 003): the seeds' tree kernels, then the modern sums.
void add_luminance_kernels(std::vector<KernelSpec>& k) {
  // Seeds 002/003: one pixel per invocation, 256 invocations, 16x16 tiles (1080p -> 120x68).
  k.push_back(tree("lum/interleaved_256", "shared-memory tree, interleaved addressing (index = 2*s*tid), 256 threads",
                   16, 16, 1, 1, 1, 0, 0));
  k.push_back(tree("lum/sequential_256", "shared-memory tree, sequential addressing (stride halves), 256 threads",
                   16, 16, 1, 1, 1, 1, 0));
  k.push_back(tree("lum/unrolled_subgroup_256",
                   "sequential, unrolled below the subgroup size with subgroup barriers (the seed's idea made correct)",
                   16, 16, 1, 1, 1, 1, 1));
  // The negative control: kernels/expectations.json expects it to fail (a race), on every device.
  k.push_back(tree("lum/unrolled_literal_256",
                   "NEGATIVE CONTROL: the seed's literal warp-synchronous tail, no barriers below 64 threads", 16, 16,
                   1, 1, 1, 1, 2));
  // Seed 000 "Reloaded": prefetching consecutive pixels in x.
  k.push_back(tree("lum/prefetch2_64", "prefetch 2 pixels per thread, 8x8 threads, 16x8 tiles", 8, 8, 2, 1, 1, 1, 0));
  k.push_back(tree("lum/prefetch2_128", "prefetch 2 pixels per thread, 8x16 threads, 16x16 tiles", 8, 16, 2, 1, 1, 1, 0));
  k.push_back(tree("lum/prefetch4_16", "prefetch 4 pixels per thread, 4x4 threads, 16x4 tiles", 4, 4, 4, 1, 1, 1, 0));
  k.push_back(tree("lum/prefetch4_64", "prefetch 4 pixels per thread, 4x16 threads, 16x16 tiles", 4, 16, 4, 1, 1, 1, 0));
  k.push_back(tree("lum/prefetch4_256", "prefetch 4 pixels per thread, 8x32 threads, 32x32 tiles", 8, 32, 4, 1, 1, 1, 0));
  k.push_back(tree("lum/prefetch4_1024", "prefetch 4 pixels per thread, 16x64 threads, 64x64 tiles", 16, 64, 4, 1, 1, 1, 0));
  k.push_back(tree("lum/prefetch4_2xshared_1024",
                   "prefetch 4 pixels into two shared slots per thread, 16x64 threads, 64x64 tiles", 16, 64, 4, 1, 2, 1,
                   0));
  k.push_back(tree("lum/fetch16_1024",
                   "16 pixels per thread (8 in x, 2 rows) into two shared slots, 16x64 threads, 128x128 tiles", 16, 64,
                   8, 2, 2, 1, 0));
  // Modern variants.
  k.push_back(subgroup_tiles("lum/subgroup_add_256", "subgroupAdd, shared partials, a second subgroupAdd; 16x16 threads, 4 pixels each, 64x16 tiles",
                             Method::LumTiles, "lum_subgroup.comp", 16, 16, 4));
  {
    constexpr uint32_t kGroup = 256, kUnroll = 4;
    k.push_back(KernelSpec{
        .name = "lum/grid_stride_vec4",
        .family = Family::Luminance,
        .method = Method::LumGridStride,
        .description = "vec4 loads in a grid-stride loop (4 in flight), grid sized from the device, subgroupAdd",
        .operation = "luminance sum",
        .shaders = {{"lum_grid_stride.comp", {{"GROUP", std::to_string(kGroup)}, {"UNROLL", std::to_string(kUnroll)}}}},
        .group_x = kGroup,
        .subgroup_ops = kSubgroupBasic | kSubgroupArithmetic,
        .roundings =
            [](const ErrorContext& c) {
              return kDotRoundings + (ceil_div(c.items, c.groups * kGroup) - 1) +
                     workgroup_sum_roundings(kGroup, c.subgroup_size);
            },
    });
  }
  k.push_back(subgroup_tiles("lum/single_pass_atomic",
                             "single pass: tile sums, then the last group to finish (atomic counter) adds them",
                             Method::LumSinglePass, "lum_single_pass.comp", 16, 16, 4));
  k.back().shaders[0].defines.push_back({"LOG_AVERAGE", "0"});
  {
    auto log_average = subgroup_tiles("lum/log_average_exposure",
                                      "single pass: sum of ln(1e-4 + L), log-average luminance and exposure 0.18 / Lavg",
                                      Method::LumSinglePass, "lum_single_pass.comp", 16, 16, 4);
    log_average.shaders[0].defines.push_back({"LOG_AVERAGE", "1"});
    log_average.log_average = true;
    log_average.operation = "log-average luminance";
    log_average.needs_nonnegative_input = true;
    k.push_back(std::move(log_average));
  }
  {
    auto stats = subgroup_tiles("lum/stats_sum_log_min_max",
                                "one read, four results: sum L, sum ln(1e-4 + L), min L, max L per 64x16 tile",
                                Method::LumStats, "lum_stats.comp", 16, 16, 4);
    stats.needs_nonnegative_input = true;
    stats.operation = "luminance statistics";
    k.push_back(std::move(stats));
  }
}

// Boids (seed 004): N positions -> average, min, max.
void add_boids_kernels(std::vector<KernelSpec>& k) {
  const auto serial = [](const ErrorContext& c) { return static_cast<double>(c.items - 1); };
  // The seeds' boids kernels are latency-bound (contract::Limit): one invocation or one workgroup does the work,
  // blending or atomics go into one place, or a chain of small dispatches waits each on the last.
  const auto latency_bound = [&] { k.back().limit = contract::Limit::Latency; };
  k.push_back(boids("boids/blend_1x1", "additive blending (ONE+ONE) of N points into a 1x1 RGBA32F target",
                    Method::BoidsBlend, {{"boids_blend.vert", {}}, {"boids_blend.frag", {}}}, 1, serial));
  latency_bound();
  k.push_back(boids("boids/mip_chain", "positions into a square RGBA32F image, vkCmdBlitImage (linear) level by level to 1x1",
                    Method::BoidsMipChain, {{"boids_scatter.comp", {{"GROUP", "64"}}}}, 64, [](const ErrorContext& c) {
                      // Each 2:1 linear blit level lerps twice (rows, then columns); a lerp rounds at most twice.
                      return 4.0 * tree_levels(mip_chain_side(c.items));
                    }));
  latency_bound();
  k.push_back(boids("boids/single_invocation", "one invocation adds all N positions", Method::BoidsSerial,
                    {{"boids_serial.comp", {}}}, 1, serial));
  latency_bound();
  for (const auto& [suffix, transposed] : {std::pair{"rows", "0"}, std::pair{"transposed", "1"}}) {
    k.push_back(boids(std::string("boids/two_pass_") + suffix,
                      std::string("64 threads sum slices (") + suffix + " reads), then one invocation over the 64 sums",
                      Method::BoidsTwoPass,
                      {{"boids_slices.comp", {{"SLICES", "64"}, {"TRANSPOSED", transposed}}}, {"boids_serial.comp", {}}},
                      64, [](const ErrorContext& c) { return (ceil_div(c.items, 64) - 1) + 63.0; }));
    latency_bound();
  }
  k.push_back(boids("boids/groupshared", "one group of 64 threads, slice sums in shared memory, thread 0 adds them",
                    Method::BoidsGroupshared, {{"boids_groupshared.comp", {{"GROUP", "64"}, {"SUBGROUP", "0"}}}}, 64,
                    [](const ErrorContext& c) { return (ceil_div(c.items, 64) - 1) + 63.0; }));
  latency_bound();
  k.push_back(boids("boids/groupshared_subgroup", "one group of 256 threads, slice sums reduced with subgroupAdd",
                    Method::BoidsGroupshared, {{"boids_groupshared.comp", {{"GROUP", "256"}, {"SUBGROUP", "1"}}}}, 256,
                    [](const ErrorContext& c) {
                      return (ceil_div(c.items, 256) - 1) + workgroup_sum_roundings(256, c.subgroup_size);
                    },
                    kSubgroupBasic | kSubgroupArithmetic));
  latency_bound();
  const auto exact = [](const ErrorContext&) { return 0.0; };
  k.push_back(boids("boids/minmax_subgroup", "per-component min and max: one group, subgroupMin/Max",
                    Method::BoidsMinMaxSubgroup, {{"boids_minmax.comp", {{"GROUP", "256"}, {"ATOMIC", "0"}}}}, 256, exact,
                    kSubgroupBasic | kSubgroupArithmetic));
  latency_bound();
  k.push_back(boids("boids/minmax_atomic", "per-component min and max: atomicMin/Max on order-preserving uint keys",
                    Method::BoidsMinMaxAtomic, {{"boids_minmax.comp", {{"GROUP", "256"}, {"ATOMIC", "1"}}}}, 256, exact));
  latency_bound();
  // Modern (issue 56): a grid sized from the device strides over the positions with 16-byte loads in flight, each
  // workgroup reduces with subgroup operations, and the last workgroup to finish reduces the partials. Timed also at
  // 33,554,432 positions (512 MiB, the bytes of the luminance sums' 7680x4320), where bandwidth bounds them: at
  // 1,048,576 (16 MiB) a dispatch's start and end take much of the time.
  {
    constexpr uint32_t kGroup = 256, kUnroll = 4;
    const std::vector<std::string> grid_sizes = {"4096", "1048576", "33554432"};
    const auto grid = [&](bool minmax) {
      return ShaderRef{"boids_grid.comp", {{"GROUP", std::to_string(kGroup)}, {"UNROLL", std::to_string(kUnroll)},
                                           {"MINMAX", minmax ? "1" : "0"}}};
    };
    k.push_back(boids("boids/grid_subgroup",
                      "grid sized from the device, vec4 loads in a grid-stride loop (4 in flight), subgroupAdd per "
                      "workgroup, then the last workgroup to finish adds the partials",
                      Method::BoidsGridSum, {grid(false)}, kGroup,
                      [](const ErrorContext& c) {
                        // Each invocation's share in order, its workgroup's sum; then the partials alike.
                        return (ceil_div(c.items, c.groups * kGroup) - 1) + workgroup_sum_roundings(kGroup, c.subgroup_size) +
                               (ceil_div(c.groups, kGroup) - 1) + workgroup_sum_roundings(kGroup, c.subgroup_size);
                      },
                      kSubgroupBasic | kSubgroupArithmetic));
    k.back().sizes = grid_sizes;
    k.push_back(boids("boids/minmax_grid",
                      "per-component min and max: grid sized from the device, vec4 loads (4 in flight), "
                      "subgroupMin/Max per workgroup, then the last workgroup to finish over the partials",
                      Method::BoidsGridMinMax, {grid(true)}, kGroup, exact,
                      kSubgroupBasic | kSubgroupArithmetic));
    k.back().sizes = grid_sizes;
  }
}

// Post-processing pipeline (seed 000, "Call for a new Post-Processing Pipeline").
void add_postfx_kernels(std::vector<KernelSpec>& k) {
  // Every post-processing kernel but the blur: 16x16 invocations per 16x16-pixel tile; bounds per pixel
  // (reference/tracked.h), not from a rounding count.
  auto tiled = [](std::string name, Method method, std::string description, std::string operation,
                  std::vector<ShaderRef> shaders, PixelSpace space) {
    KernelSpec spec{.name = std::move(name),
                    .family = Family::Postfx,
                    .method = method,
                    .description = std::move(description),
                    .operation = std::move(operation),
                    .shaders = std::move(shaders),
                    .group_x = 16,
                    .group_y = 16,
                    .tile_x = 16,
                    .tile_y = 16,
                    .roundings = [](const ErrorContext&) { return 0.0; }};
    spec.input_space = space;
    return spec;
  };
  auto pixel = [&](std::string name, std::string description, PostfxStage stage, PixelSpace space, int op = 0,
                   std::vector<uint32_t> specialization = {}) {
    Defines defines{{"STAGE", std::to_string(static_cast<int>(stage))}};
    if (stage == PostfxStage::ToneMapY) defines.push_back({"OPERATOR", std::to_string(op)});
    KernelSpec spec = tiled(std::move(name), Method::PixelMap, std::move(description), pixel_operation(stage),
                            {{"postfx_pixel.comp", std::move(defines)}}, space);
    spec.stage = stage;
    spec.tone_operator = op;
    spec.specialization = std::move(specialization);
    k.push_back(std::move(spec));
  };
  pixel("postfx/rgb_to_yxy", "linear sRGB (Rec.709, D65; Lindbloom's matrix) to CIE Yxy, black guarded",
        PostfxStage::RgbToYxy, PixelSpace::Rgb);
  pixel("postfx/yxy_to_rgb", "CIE Yxy back to linear sRGB", PostfxStage::YxyToRgb, PixelSpace::Yxy);
  const std::pair<const char*, int> y_operators[] = {{"reinhard", 0},          {"reinhard_extended", 1}, {"hable", 2},
                                                     {"aces_narkowicz", 3},    {"hejl_burgess_dawson", 5},
                                                     {"lottes", 6},            {"uchimura", 7},
                                                     {"drago", 8},             {"day_insomniac", 9}};
  for (const auto& [op_name, op] : y_operators) {
    pixel(std::string("postfx/tonemap_") + op_name, std::string("tone map Y of a Yxy image, exposure a/Lavg: ") + op_name,
          PostfxStage::ToneMapY, PixelSpace::Yxy, op);
  }
  pixel("postfx/tonemap_aces_hill", "ACES fitted (Hill, RGB matrices) on exposed RGB", PostfxStage::AcesHillRgb,
        PixelSpace::Rgb, 4);
  pixel("postfx/bright_pass", "bright-pass on Y (threshold 5, offset 10), x and y kept", PostfxStage::BrightPass,
        PixelSpace::Yxy);
  pixel("postfx/local_gamma", "dynamic local gamma: Y = L^(0.444 + 0.045 ln(L + 0.6034))", PostfxStage::LocalGamma,
        PixelSpace::YxyToneMapped);
  for (const auto& [op_name, op] : {std::pair{"reinhard", 0}, std::pair{"hable", 2}, std::pair{"aces_narkowicz", 3}}) {
    pixel(std::string("postfx/fused_") + op_name,
          std::string("fused RGB -> Yxy -> exposure -> tone map -> local gamma -> RGB, one read and one write: ") + op_name,
          PostfxStage::Fused, PixelSpace::Rgb, op, {static_cast<uint32_t>(op)});
  }
  pixel("postfx/coc", "circle of confusion in pixels from depth (Potmesil; 50 mm, f/2.8, focus 5 m, 36 mm sensor)",
        PostfxStage::CircleOfConfusion, PixelSpace::RgbDepth);
  k.push_back(tiled("postfx/dof_tiles", Method::DofTiles,
                    "per 16x16 tile: max near CoC, min far CoC, counts (the seed's red/green image)", "depth-of-field tiles",
                    {{"postfx_dof_tiles.comp", {}}}, PixelSpace::RgbDepth));
  {
    KernelSpec tiles = tiled("postfx/dof_tiles_subgroup", Method::DofTiles,
                             "the same tiles, each subgroup's by subgroup operations, then the subgroups' in shared "
                             "memory: one barrier", "depth-of-field tiles",
                             {{"postfx_dof_tiles_subgroup.comp", {}}}, PixelSpace::RgbDepth);
    tiles.group_y = 8;  // two pixels of the tile per invocation
    tiles.subgroup_ops = kSubgroupBasic | kSubgroupArithmetic;
    k.push_back(std::move(tiles));
  }
  {
    const uint32_t max_radius = 8;
    KernelSpec dof = tiled("postfx/dof_composite", Method::DofComposite,
                           "depth of field: tile pass, then far + focus gathered within each pixel's CoC and the near "
                           "field over it by its coverage (CoC clamped to " + std::to_string(max_radius) + " pixels)",
                           "depth of field",
                           {{"postfx_dof_tiles.comp", {}},
                            {"postfx_dof_composite.comp", {{"MAX_RADIUS", std::to_string(max_radius)}}}},
                           PixelSpace::RgbDepth);
    dof.dof_max_radius = max_radius;
    dof.limit = contract::Limit::Compute;  // a gather of up to 289 taps a pixel: its arithmetic, not its bytes
    KernelSpec staged = dof;
    staged.name = "postfx/dof_composite_staged";
    staged.description = "depth of field for real time: the subgroup tile pass, then the same gather and composite, each "
                         "workgroup's window staged in shared memory with its CoC and near weight computed once per "
                         "pixel, two pixels an invocation reading each tap once, far + focus and the near field walked "
                         "apart, one window per subgroup each, unrolled whole at their common widths, the near field "
                         "by its pixels' bits where the tiles around hold few, and at the CoC clamp with a row's taps "
                         "inside both pixels' discs summed once";
    staged.shaders[0].file = "postfx_dof_tiles_subgroup.comp";
    // Two pixels an invocation: 1321 us at 3840x2160 on an H100 (README: the shapes timed).
    const uint32_t block = 2;
    staged.shaders[1] = {"postfx_dof_composite_staged.comp",
                         {{"MAX_RADIUS", std::to_string(max_radius)}, {"BLOCK", std::to_string(block)}}};
    staged.group_y = 16 / block;
    staged.subgroup_ops = kSubgroupBasic | kSubgroupVote | kSubgroupArithmetic;
    // Real time is 3840x2160 and below; at 8K its 8.4 ms a frame (H200) would take the default suite past a minute.
    staged.sizes = {"1280x720", "1920x1080", "3840x2160"};
    k.push_back(std::move(dof));
    k.push_back(std::move(staged));
  }
  for (const auto& [variant, shared] : {std::pair{"naive", "0"}, std::pair{"shared", "1"}}) {
    // TILE_X x TILE_Y: the pixels a workgroup of each pass writes, from which the harness sizes its dispatch.
    // Naive: one per invocation, 256x1 then 16x16. Shared (K = 4 per invocation along the pass, STEPS sub-tiles
    // in turn): 64 invocations blur 256x8 in 8 rows, then 8x16 invocations blur 8x256 in 4 sub-tiles of 8x64;
    // the shapes were the fastest tried on an H200 at 1920x1080 and 3840x2160 with K = 8. K = 4 with the
    // weights as constants (WEIGHT_BITS) took 75 and 68 registers where K = 8 with the weights in registers took
    // 164 and 147, and was the fastest of 11 shapes tried on an H100 (2026-12-06): 216.9 -> 208.6 us at 3840x2160.
    const bool staged = shared[0] == '1';
    auto pass = [&](const char* direction, const char* tile_x, const char* tile_y, const char* steps) {
      ShaderRef r{"postfx_blur.comp", {{"DIRECTION", direction}, {"SHARED", shared}, {"RADIUS", "16"},
                                       {"TILE_X", tile_x}, {"TILE_Y", tile_y}}};
      if (staged) {
        r.defines.emplace_back("STEPS", steps);
        r.defines.emplace_back("K", "4");
        r.defines.emplace_back("WEIGHT_BITS", blur_weight_bits(16));
      }
      return r;
    };
    KernelSpec blur{.name = std::string("postfx/blur_") + variant + "_r16",
                    .family = Family::Postfx,
                    .method = Method::Blur,
                    .description = std::string("separable Gaussian, radius 16 (sigma 16/3), x then y pass, ") +
                                   (staged ? "rows/columns staged in shared memory, 4 outputs per invocation, weights as constants"
                                           : "every tap from memory"),
                    .operation = "Gaussian blur, radius 16",
                    .shaders = {staged ? pass("0", "256", "8", "8") : pass("0", "256", "1", ""),
                                staged ? pass("1", "8", "256", "4") : pass("1", "16", "16", "")},
                    .group_x = staged ? 128u : 256u,  // invocations per workgroup, of the larger pass
                    .group_y = 1,
                    .roundings = [](const ErrorContext&) { return 0.0; }};
    blur.blur_radius = 16;
    k.push_back(std::move(blur));
  }
}

std::vector<KernelSpec> build_catalog() {
  std::vector<KernelSpec> k;
  add_luminance_kernels(k);
  add_boids_kernels(k);
  add_postfx_kernels(k);
  for (auto& spec : k) spec.plan = method_plan(spec);
  return k;
}
}  // namespace

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint32_t tree_levels(uint64_t x) {
  uint32_t levels = 0;
  while ((uint64_t{1} << levels) < x) ++levels;
  return levels;
}

uint32_t mip_chain_side(uint64_t count) {
  uint32_t side = 1;
  while (uint64_t{side} * side < count) side *= 2;
  return side;
}

double workgroup_sum_roundings(uint32_t threads, uint32_t subgroup_size) {
  const uint64_t subgroups = ceil_div(threads, subgroup_size);
  return tree_levels(subgroup_size) + (ceil_div(subgroups, subgroup_size) - 1) + tree_levels(subgroup_size);
}


namespace {
std::vector<KernelSpec>& catalog_entries() {
  static std::vector<KernelSpec> entries = build_catalog();
  return entries;
}
}  // namespace

const std::vector<KernelSpec>& catalog() { return catalog_entries(); }

void add_to_catalog(std::vector<KernelSpec> kernels) {
  std::vector<KernelSpec>& entries = catalog_entries();
  for (auto& k : kernels) {
    if (find_kernel_or_null(k.name)) throw std::invalid_argument("a kernel named '" + k.name + "' is in the catalog already");
    entries.push_back(std::move(k));
  }
}

const std::string* shader_define(const ShaderRef& shader, const std::string& define) {
  for (const auto& [name, value] : shader.defines)
    if (name == define) return &value;
  return nullptr;
}

const std::string& define_value(const KernelSpec& spec, const std::string& define) {
  for (const auto& shader : spec.shaders)
    if (const std::string* value = shader_define(shader, define)) return *value;
  throw std::invalid_argument(spec.name + " is built without " + define);
}

const KernelSpec* find_kernel_or_null(std::string_view name) {
  for (const auto& k : catalog())
    if (k.name == name) return &k;
  return nullptr;
}

const KernelSpec& find_kernel(const std::string& name) {
  if (const KernelSpec* k = find_kernel_or_null(name)) return *k;
  throw std::invalid_argument("no kernel named '" + name + "' in the catalog (see --list-kernels)");
}

ShaderRef copy_probe_shader(bool write_only, bool tiled) {
  return {"copy.comp", {{"GROUP", "256"}, {"UNROLL", "4"}, {"WRITE_ONLY", write_only ? "1" : "0"},
                        {"TILED", tiled ? "1" : "0"}}};
}

Traffic kernel_traffic(const KernelSpec& spec, uint64_t items) {
  const uint64_t image = items * 16;
  switch (spec.method) {
    case Method::PixelMap: return {image, image};              // one read and one write per pixel
    case Method::Blur: return {2 * image, 2 * image};          // two passes, each reading and writing the image
    case Method::DofComposite: return {2 * image, image};      // the tile pass reads it; the composite reads and writes it
    case Method::PackReference: {                              // the input read; what is compared written, where it is
      try {                                                    // a count of items alone (NaN groups: no count)
        return {image, spec.reference->compared.count({{"items", double(items)}, {"groups", NAN}}, ~uint64_t{0} / 8) * 4};
      } catch (const FormulaError&) {
        return {image, 0};
      }
    }
    default: return {image, 0};                                // reductions and the DoF tiles: a small output
  }
}

double ReferenceShader::bound(double expected) const {
  // An ULP is the spacing of floats at the expected value's: what the kernel, writing floats, can land on.
  const float e = std::fabs(static_cast<float>(expected));
  const double ulp = static_cast<double>(std::nextafter(e, INFINITY)) - e;
  return std::max({absolute, relative * std::fabs(expected), ulps * ulp});
}

ShaderRef read_probe_shader(bool tiled) {
  return {"read_probe.comp", {{"GROUP", "256"}, {"UNROLL", "4"}, {"TILED", tiled ? "1" : "0"}}};
}

std::vector<ShaderRef> all_shader_variants() {
  std::vector<ShaderRef> out;
  for (bool tiled : {false, true}) {
    out.push_back(read_probe_shader(tiled));
    for (bool write_only : {false, true}) out.push_back(copy_probe_shader(write_only, tiled));
  }
  std::set<std::pair<std::string, Defines>> seen;
  for (const auto& s : out) seen.emplace(s.file, s.defines);
  for (const auto& k : catalog())
    for (const auto& s : k.shaders)
      if (seen.emplace(s.file, s.defines).second) out.push_back(s);
  return out;
}

}  // namespace shaderwatch
