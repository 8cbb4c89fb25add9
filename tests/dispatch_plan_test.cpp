// Dispatch plans as data (kernels/dispatch_plan.h): every catalog method that is plain compute dispatches has a
// sound plan, and plan_error names each kind of mistake. No device: the executor's own tests are in harness_test.
#include <gtest/gtest.h>

#include <bit>
#include <sstream>

#include "catalog.h"

using namespace shaderwatch;

TEST(DispatchPlan, EveryCatalogKernelButBlendAndMipChainRunsAsASoundPlan) {
  int planned = 0;
  for (const KernelSpec& spec : catalog()) {
    SCOPED_TRACE(spec.name);
    const bool hand_written = spec.method == Method::BoidsBlend || spec.method == Method::BoidsMipChain;
    ASSERT_EQ(spec.plan.has_value(), !hand_written);
    if (!spec.plan) continue;
    ++planned;
    EXPECT_EQ(plan_error(*spec.plan, spec.shaders.size()), "");
    EXPECT_EQ(spec.plan->passes.size(), spec.shaders.size()) << "every shader of a planned kernel is a pass";
  }
  EXPECT_GE(planned, 40);
}

TEST(DispatchPlan, OutputSizesFollowTheRun) {
  const DispatchPlan& lum = *find_kernel("lum/log_average_exposure").plan;
  EXPECT_EQ(lum.buffer(BufferRole::Output)->bytes.of({.items = 1000, .groups = 10}), (10 + 3) * 4u);
  ASSERT_NE(lum.buffer(BufferRole::Counter), nullptr);
  const DispatchPlan& pixel = *find_kernel("postfx/rgb_to_yxy").plan;
  EXPECT_EQ(pixel.buffer(BufferRole::Output)->bytes.of({.items = 1000, .groups = 10}), 16000u);
  EXPECT_EQ(pixel.buffer(BufferRole::Partials), nullptr);
  const DispatchPlan& blur = *find_kernel("postfx/blur_shared_r16").plan;
  bool weights = false;
  for (const auto& b : blur.buffers) weights = weights || (b.role == BufferRole::Constant && b.contents == blur_weights(16));
  EXPECT_TRUE(weights) << "the blur's weights travel in its plan, the values its check reads";
}

// The staged blur takes its weights as constants (WEIGHT_BITS): bit for bit the buffer's, which its check reads.
TEST(DispatchPlan, TheBlursConstantWeightsAreTheBuffersBits) {
  const std::vector<float> weights = blur_weights(16);
  std::vector<float> constants;
  std::stringstream bits(blur_weight_bits(16));
  for (std::string literal; std::getline(bits, literal, ',');) {
    ASSERT_EQ(literal.size(), 11u) << literal;  // 0x, 8 hex digits, u
    ASSERT_EQ(literal.back(), 'u') << literal;
    constants.push_back(std::bit_cast<float>(static_cast<uint32_t>(std::stoul(literal.substr(2, 8), nullptr, 16))));
  }
  ASSERT_EQ(constants.size(), weights.size());
  for (size_t i = 0; i < weights.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(constants[i]), std::bit_cast<uint32_t>(weights[i])) << "weight " << i;
  for (const ShaderRef& pass : find_kernel("postfx/blur_shared_r16").shaders) {
    const std::string* defined = shader_define(pass, "WEIGHT_BITS");
    ASSERT_NE(defined, nullptr) << "each staged pass takes the weights as constants";
    EXPECT_EQ(*defined, blur_weight_bits(16));
  }
}

TEST(DispatchPlan, EachMistakeIsNamed) {
  const KernelSpec& spec = find_kernel("postfx/dof_composite");
  auto error_of = [&](auto&& mutate) {
    DispatchPlan plan = *spec.plan;
    mutate(plan);
    return plan_error(plan, spec.shaders.size());
  };
  EXPECT_EQ(error_of([](DispatchPlan&) {}), "");
  EXPECT_EQ(error_of([](DispatchPlan& p) { p.buffers.push_back(p.buffers.back()); }), "buffer 'output' is declared twice");
  EXPECT_EQ(error_of([](DispatchPlan& p) { p.buffers.back().role = BufferRole::Partials; }),
            "a plan has one output buffer, not 0");
  EXPECT_EQ(error_of([](DispatchPlan& p) { p.passes[1].bindings[2] = "tiles"; }), "pass 2 binds 'tiles', which no buffer is");
  EXPECT_EQ(error_of([](DispatchPlan& p) { p.passes[0].shader = 2; }), "pass 1 names shader 2 of 2");
  EXPECT_EQ(error_of([](DispatchPlan& p) { p.passes[0].groups.x = 0; }), "pass 1 has a workgroup count or size of 0");
  EXPECT_EQ(error_of([](DispatchPlan& p) { p.passes.clear(); }), "a plan has at least one pass");
  EXPECT_EQ(error_of([](DispatchPlan& p) { p.buffers[0].bytes = {}; }), "buffer 'partials' has no size");
  EXPECT_EQ(error_of([](DispatchPlan& p) { p.buffers[0].fills = {{.offset = 2, .bytes = 4}}; }),
            "a fill of buffer 'partials' is not whole words");
}
