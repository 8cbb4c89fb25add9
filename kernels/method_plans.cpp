// The plan of each catalog Method that is plain compute dispatches (dispatch_plan.h): the one place its buffers,
// bindings, workgroups and push constants are written. The shaders read them as laid out here.
#include <bit>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "catalog.h"

namespace shaderwatch {

namespace {

using Kind = PushWord::Kind;
constexpr uint64_t kFloat = 4, kVec4 = 16;
const PushWord kWidth{Kind::Width}, kHeight{Kind::Height}, kItems{Kind::Items}, kGroups{Kind::Groups};
const PushWord kZero{Kind::Value, 0}, kParameters{Kind::Parameters};

Workgroups tiles(uint32_t x, uint32_t y) { return {Workgroups::Kind::Tiles, x, y}; }
Workgroups one_group() { return {Workgroups::Kind::Fixed, 1, 1}; }

PlanBuffer output(ByteCount bytes) { return {.name = "output", .role = BufferRole::Output, .bytes = bytes}; }
PlanBuffer partials(ByteCount bytes) { return {.name = "partials", .role = BufferRole::Partials, .bytes = bytes}; }

// Luminance: one dispatch over the image, [width, height, pixels, workgroups] pushed; a float (or the stats' vec4)
// per workgroup, the single-pass kernels' total after them, counted by an atomic counter.
DispatchPlan luminance(Workgroups groups, ByteCount out, bool counter) {
  DispatchPlan plan{.buffers = {output(out)},
                    .passes = {{.shader = 0, .bindings = {"input", "output"}, .groups = groups,
                                .push = {kWidth, kHeight, kItems, kGroups}}}};
  if (counter) {
    plan.buffers.push_back({.name = "counter", .role = BufferRole::Counter, .bytes = {.fixed = kFloat}});
    plan.passes[0].bindings.push_back("counter");
  }
  return plan;
}

// Post-processing over 16x16-pixel tiles: [width, height, 0, 0, the family's parameters...] pushed.
PlanPass tiled_pass(const KernelSpec& spec, size_t shader, std::vector<std::string> bindings) {
  return {.shader = shader, .bindings = std::move(bindings), .groups = tiles(spec.tile_x, spec.tile_y),
          .push = {kWidth, kHeight, kZero, kZero, kParameters}};
}

// A blur pass's workgroups: its shader writes the TILE_X x TILE_Y pixels its defines say.
Workgroups blur_tiles(const KernelSpec& spec, size_t pass) {
  auto tile = [&](const std::string& name) -> uint32_t {
    if (const std::string* value = shader_define(spec.shaders.at(pass), name)) return static_cast<uint32_t>(std::stoul(*value));
    throw std::logic_error(spec.name + ": blur pass " + std::to_string(pass) + " lacks " + name);
  };
  return tiles(tile("TILE_X"), tile("TILE_Y"));
}

}  // namespace

std::vector<float> blur_weights(uint32_t radius) {
  const double sigma = radius / 3.0;
  std::vector<double> w(2 * radius + 1);
  double total = 0;
  for (int i = -static_cast<int>(radius); i <= static_cast<int>(radius); ++i) {
    w[i + radius] = std::exp(-0.5 * i * i / (sigma * sigma));
    total += w[i + radius];
  }
  std::vector<float> out;
  for (double v : w) out.push_back(static_cast<float>(v / total));
  return out;
}

std::string blur_weight_bits(uint32_t radius) {
  std::string bits;
  for (float weight : blur_weights(radius)) {
    char literal[16];
    std::snprintf(literal, sizeof literal, "%s0x%08xu", bits.empty() ? "" : ",", std::bit_cast<uint32_t>(weight));
    bits += literal;
  }
  return bits;
}

std::optional<DispatchPlan> method_plan(const KernelSpec& spec) {
  const Workgroups spec_tiles = tiles(spec.tile_x, spec.tile_y);
  switch (spec.method) {
    case Method::LumTiles: return luminance(spec_tiles, {.per_group = kFloat}, false);
    case Method::LumGridStride:
      return luminance({Workgroups::Kind::DeviceGrid, spec.group_x, 1}, {.per_group = kFloat}, false);
    case Method::LumSinglePass:  // the tile floats, then the total (and Lavg and the exposure)
      return luminance(spec_tiles, {.per_group = kFloat, .fixed = (spec.log_average ? 3 : 1) * kFloat}, true);
    case Method::LumStats: return luminance(spec_tiles, {.per_group = kVec4}, false);
    case Method::BoidsSerial:
    case Method::BoidsGroupshared:
    case Method::BoidsMinMaxSubgroup:  // two vec4: the sums (the second unused), or min then max
      return DispatchPlan{.buffers = {output({.fixed = 2 * kVec4})},
                          .passes = {{.bindings = {"input", "output"}, .groups = one_group(), .push = {kItems}}}};
    case Method::BoidsTwoPass: {  // SLICES partial sums, then one invocation over them
      const uint32_t slices = static_cast<uint32_t>(std::stoul(define_value(spec, "SLICES")));
      return DispatchPlan{
          .buffers = {partials({.fixed = slices * kVec4}), output({.fixed = kVec4})},
          .passes = {{.shader = 0, .bindings = {"input", "partials"}, .groups = one_group(), .push = {kItems}},
                     {.shader = 1, .bindings = {"partials", "output"}, .groups = one_group(),
                      .push = {{Kind::Value, slices}}}}};
    }
    case Method::BoidsMinMaxAtomic: {  // keys of min x, y, z then max x, y, z; min starts at the largest key, max at 0
      PlanBuffer keys = output({.fixed = 6 * kFloat});
      keys.fills = {{.offset = 0, .bytes = 12, .value = 0xFFFFFFFFu}, {.offset = 12, .bytes = 12, .value = 0}};
      return DispatchPlan{.buffers = {keys},
                          .passes = {{.bindings = {"input", "output"},
                                      .groups = {Workgroups::Kind::PerItem, spec.group_x, 1}, .push = {kItems}}}};
    }
    case Method::BoidsGridSum:
    case Method::BoidsGridMinMax: {  // a partial per workgroup of the grid (the sum, or min then max); the last
                                     // workgroup to finish, counted, writes the answer
      const uint64_t per_group = spec.method == Method::BoidsGridMinMax ? 2 * kVec4 : kVec4;
      return DispatchPlan{
          .buffers = {output({.fixed = 2 * kVec4}), partials({.per_group = per_group}),
                      {.name = "counter", .role = BufferRole::Counter, .bytes = {.fixed = kFloat}}},
          .passes = {{.shader = 0, .bindings = {"input", "output", "partials", "counter"},
                      .groups = {Workgroups::Kind::DeviceGrid, spec.group_x, 1}, .push = {kItems, kGroups}}}};
    }
    case Method::PixelMap:
      return DispatchPlan{.buffers = {output({.per_item = kVec4})}, .passes = {tiled_pass(spec, 0, {"input", "output"})}};
    case Method::DofTiles:  // a vec4 per tile
      return DispatchPlan{.buffers = {output({.per_group = kVec4})}, .passes = {tiled_pass(spec, 0, {"input", "output"})}};
    case Method::DofComposite:  // the tile pass into the partials, then the composite reading them
      return DispatchPlan{.buffers = {partials({.per_group = kVec4}), output({.per_item = kVec4})},
                          .passes = {tiled_pass(spec, 0, {"input", "partials"}),
                                     tiled_pass(spec, 1, {"input", "output", "partials"})}};
    case Method::Blur: {  // the x pass into the partials, then the y pass; both read the weights
      PlanBuffer weights{.name = "weights", .role = BufferRole::Constant, .contents = blur_weights(spec.blur_radius)};
      return DispatchPlan{
          .buffers = {weights, partials({.per_item = kVec4}), output({.per_item = kVec4})},
          .passes = {{.shader = 0, .bindings = {"input", "partials", "weights"}, .groups = blur_tiles(spec, 0),
                      .push = {kWidth, kHeight}},
                     {.shader = 1, .bindings = {"partials", "output", "weights"}, .groups = blur_tiles(spec, 1),
                      .push = {kWidth, kHeight}}}};
    }
    case Method::BoidsBlend:     // a graphics pipeline
    case Method::BoidsMipChain:  // vkCmdBlitImage level by level
    case Method::PackReference:  // a pack's kernel: its plan is its manifest's
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace shaderwatch
