// Issue 32 on lavapipe: the race delays of --check --race, the guard values past min/max kernels' inputs, the
// whole-number input whose float sums are exact, and the check sizes from a kernel's dispatch.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>

#include "boids.h"
#include "suite/check_suite.h"
#include "families/kernel_family.h"
#include "families/kernel_input.h"
#include "vulkan/kernel_sources.h"
#include "vulkan/pipelines.h"
#include "vulkan/shader_compiler.h"
#include "vulkan/vulkan_context.h"
#include "families/boids/boids_family.h"

using namespace shaderwatch;

namespace {

constexpr uint32_t kOpCapability = 17, kCapabilityShaderClockKHR = 5055, kOpVariable = 59, kStorageWorkgroup = 4;

// Whether an instruction of the module has `opcode` and, `at` words after it, `operand`.
bool has_instruction(const std::vector<uint32_t>& spirv, uint32_t opcode, size_t at, uint32_t operand) {
  for (size_t i = 5; i < spirv.size();) {  // after the 5-word header: (word count << 16 | opcode), operands
    const uint32_t words = spirv[i] >> 16;
    if ((spirv[i] & 0xFFFF) == opcode && at < words && spirv[i + at] == operand) return true;
    i += words ? words : 1;
  }
  return false;
}

bool reads_the_clock(const std::vector<uint32_t>& spirv) {
  return has_instruction(spirv, kOpCapability, 1, kCapabilityShaderClockKHR);
}
bool has_shared_memory(const std::vector<uint32_t>& spirv) { return has_instruction(spirv, kOpVariable, 3, kStorageWorkgroup); }

bool shares_memory(const KernelSpec& spec) {
  static const std::regex shared_declaration(R"((^|\n)\s*shared\s)");
  for (const std::string& file : kernel_source_files(spec))
    if (std::regex_search(kernel_source(file), shared_declaration)) return true;
  return false;
}

}  // namespace

TEST(RaceDelays, EveryShaderWithSharedMemoryReadsTheClockInARaceBuildAndNoneOtherwise) {
  ShaderCompiler plain, race(Defines{{"RACE_DELAYS", "1"}});
  size_t sharing = 0;
  for (const KernelSpec& spec : catalog()) {
    for (const ShaderRef& shader : spec.shaders) {
      if (ShaderCompiler::stage_of(shader.file) != ShaderStage::Compute) continue;
      SCOPED_TRACE(spec.name + " " + shader.file);
      const std::vector<uint32_t>& spirv = plain.compile(shader.file, shader.defines);
      EXPECT_FALSE(reads_the_clock(spirv));
      const bool shares = has_shared_memory(spirv);
      sharing += shares;
      if (shares) {
        EXPECT_TRUE(reads_the_clock(race.compile(shader.file, shader.defines))) << "no race_delay() in it";
      }
    }
  }
  EXPECT_GE(sharing, 20u) << "the shared-memory shaders were not found";
}

TEST(RaceDelays, EverySharedMemoryKernelPassesItsCheckWithThemOnLavapipe) {
  Instance instance(/*validation=*/true);
  Device device(instance, instance.select(""), DeviceWants{.shader_clock = true});
  ShaderCompiler race(Defines{{"RACE_DELAYS", "1"}});
  std::string names;
  for (const KernelSpec& spec : catalog()) {
    if (shares_memory(spec) && spec.name != "lum/unrolled_literal_256") names += (names.empty() ? "" : "|") + spec.name;
  }
  const std::vector<CheckCase> cases{{Family::Luminance, InputKind::Random, {255, 127, 0}, "", ""},
                                     {Family::Boids, InputKind::Random, {0, 0, 4099}, "", ""},
                                     {Family::Postfx, InputKind::HdrTest, {67, 35, 0}, "", ""}};
  const CheckSummary summary = run_check_suite(device, race, std::regex("^(" + names + ")$"), 7, cases, CheckPolicy{}, nullptr);
  EXPECT_GE(summary.rows.size(), 20u);
  for (const auto& row : summary.rows) EXPECT_EQ(status_name(row.outcome.status), "PASS") << row.kernel << ": " << row.outcome.message;
  EXPECT_EQ(instance.validation_log().count(), 0u);
}

TEST(InputGuard, MinMaxAndDepthOfFieldKernelsGetExtremesOfBothSignsOthersNaN) {
  EXPECT_EQ(input_guard(find_kernel("boids/minmax_subgroup")), GuardFill::Extremes);
  EXPECT_EQ(input_guard(find_kernel("boids/minmax_atomic")), GuardFill::Extremes);
  EXPECT_EQ(input_guard(find_kernel("postfx/dof_tiles")), GuardFill::Extremes);
  EXPECT_EQ(input_guard(find_kernel("postfx/dof_composite")), GuardFill::Extremes);
  EXPECT_EQ(kernel_input_variant(find_kernel("postfx/dof_tiles")), kernel_input_variant(find_kernel("postfx/dof_composite")))
      << "the depth-of-field kernels share one upload of their input";
  EXPECT_EQ(input_guard(find_kernel("postfx/tonemap_reinhard")), GuardFill::NaN);
  EXPECT_EQ(input_guard(find_kernel("boids/single_invocation")), GuardFill::NaN);
  EXPECT_EQ(input_guard(find_kernel("lum/stats_sum_log_min_max")), GuardFill::NaN);
  EXPECT_NE(kernel_input_variant(find_kernel("boids/minmax_subgroup")), kernel_input_variant(find_kernel("boids/single_invocation")))
      << "one upload cannot serve both guards";
  const std::vector<float> guard = extreme_guard_values(64);
  for (size_t v = 0; v < 16; ++v) {  // each vec4 moves a min and a max, whichever component takes part
    float lo = INFINITY, hi = -INFINITY;
    for (size_t c = 0; c < 4; ++c) {
      EXPECT_GE(std::fabs(guard[v * 4 + c]), 0x1p96f);
      lo = std::min(lo, guard[v * 4 + c]);
      hi = std::max(hi, guard[v * 4 + c]);
    }
    EXPECT_LT(lo, -1e28f);
    EXPECT_GT(hi, 1e28f);
  }
  for (size_t n = 1; n <= 16; ++n) {  // a run of them read past the end never sums to a small number
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += guard[i * 4];
    EXPECT_GE(std::fabs(sum), 0x1p95) << n;
  }
}

TEST(WholeInput, ItsFloatSumsAreExactSoOneLostPositionOfLongSumsFails) {
  const Problem p = make_boids_problem(InputKind::Whole, 65537, 3);
  const auto ref = reference::boids_stats(p.data, p.count);
  float serial[3] = {0, 0, 0};
  for (uint64_t i = 0; i < p.count; ++i)
    for (int c = 0; c < 3; ++c) serial[c] += p.data[i * 4 + c];
  for (int c = 0; c < 3; ++c) {
    EXPECT_TRUE(ref.exact_in_float[c]);
    EXPECT_LE(ref.abs_sum[c], 16777216.0);
    EXPECT_EQ(static_cast<double>(serial[c]), ref.sum[c]) << "a float sum of them is the exact sum";
  }
  for (uint64_t i = 0; i < p.count; ++i) ASSERT_NE(p.data[i * 4], 0.0f) << "a lost zero would not show";
  EXPECT_FALSE(reference::boids_stats(make_boids_problem(InputKind::Random, 4099, 3).data, 4099).exact_in_float[0]);
}

TEST(DispatchCheckSizes, TheGridStrideLoopLeavesEveryRemainderOnEveryDevice) {
  const KernelSpec& spec = find_kernel("lum/grid_stride_vec4");
  const uint32_t unroll = std::stoul(define_value(spec, "UNROLL"));
  for (const uint32_t sms : {0u, 114u, 132u}) {  // lavapipe (no SM count), an H100 PCIe, an H100 SXM or H200
    DeviceInfo device;
    device.sm_count = sms;
    const auto sizes = kernel_method(spec).dispatch_check_sizes(spec, device);
    std::set<uint64_t> classes;
    for (const auto& [size, why] : sizes) {
      SCOPED_TRACE(std::to_string(sms) + " SMs, " + std::to_string(size.width) + "x" + std::to_string(size.height));
      EXPECT_LE(size.width, 65536u);
      const uint64_t n = size.items(), stride = uint64_t{grid_stride_groups(device, n, spec.group_x)} * spec.group_x;
      EXPECT_NE(n % stride, 0u) << "both sides: invocations with q and with q + 1 pixels";
      classes.insert((n / stride) % unroll);
      classes.insert((n / stride + 1) % unroll);
      // The issue's case: some invocation's unrolled guard lands exactly on the end, for some size.
      EXPECT_FALSE(why.empty());
    }
    EXPECT_EQ(classes.size(), unroll);
    bool guard_on_the_end = false;
    for (const auto& [size, why] : sizes) {
      const uint64_t n = size.items(), stride = uint64_t{grid_stride_groups(device, n, spec.group_x)} * spec.group_x;
      guard_on_the_end = guard_on_the_end || (n - (unroll - 1) * stride) % (unroll * stride) < stride;
    }
    EXPECT_TRUE(guard_on_the_end) << "no size where `<=` in the unrolled guard reads past the image";
  }
  EXPECT_TRUE(kernel_method(find_kernel("lum/sequential_256")).dispatch_check_sizes(find_kernel("lum/sequential_256"), DeviceInfo{}).empty());
}
