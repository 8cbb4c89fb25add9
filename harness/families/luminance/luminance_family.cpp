// The luminance reductions as a kernel family: images of HDR-like pixels, one sum (or stats) per tile.
#include "families/luminance/luminance_family.h"

#include "families/kernel_family.h"
#include "families/luminance/luminance_method.h"

namespace shaderwatch {

const LuminanceMethod& luminance_method(Method id) {
  static const MethodTable<LuminanceMethod> table{
      {Method::LumTiles, &lum_tiles_method()},
      {Method::LumGridStride, &lum_grid_stride_method()},
      {Method::LumSinglePass, &lum_single_pass_method()},
      {Method::LumStats, &lum_stats_method()},
  };
  return find_method(table, id, "the luminance family");
}

std::vector<reference::LuminanceGroup> expected_luminance(const KernelSpec& spec, const Problem& problem,
                                                          const RunShape& shape) {
  return luminance_method(spec.method).expected(spec, problem, shape);
}

namespace {

std::vector<CheckInput> luminance_check_inputs() {
  std::vector<CheckInput> inputs;
  // Tiles are 4 to 64 pixels a side: 256x128 is an exact multiple of every tile, 255x127 one under,
  // 1921x1079 one over and one under 1920x1080.
  for (const auto& [w, h] : {std::pair{1920u, 1080u}, {1921u, 1079u}, {256u, 128u}, {255u, 127u}, {17u, 3u}, {1u, 1u}}) {
    inputs.push_back({InputKind::Random, {w, h, 0}});
  }
  for (InputKind kind : {InputKind::Exponents, InputKind::Zeros, InputKind::Signed}) inputs.push_back({kind, {333, 77, 0}});
  return inputs;
}

}  // namespace

const KernelFamily& luminance_family() {
  static const KernelFamily family{
      .id = Family::Luminance,
      .name = "lum",
      .display_name = "luminance",
      .size = family_size_kind(Family::Luminance),
      .benchmark_input = InputKind::Random,
      .make_problem = [](InputKind kind, const SizeSpec& size, uint64_t seed) {
        return make_luminance_problem(kind, size.width, size.height, seed);
      },
      .generator_version = 1,  // as of 2026-11-26
      .derive_input = nullptr,
      .input_variant = nullptr,
      .reference_key = nullptr,
      // NaN: every kernel sums the luminance of each pixel it reads (the stats kernel beside its min and max).
      .input_guard = nullptr,
      .method = [](Method id) -> const KernelMethod& { return luminance_method(id); },
      .check_ns_per_item = 10,  // a compensated sum of each pixel's luminance
      .check_inputs = luminance_check_inputs,
  };
  return family;
}

}  // namespace shaderwatch
