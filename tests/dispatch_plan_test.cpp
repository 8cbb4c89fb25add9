// Dispatch plans as data (kernels/dispatch_plan.h): every catalog method that is plain compute dispatches has a
// sound plan, and plan_error names each kind of mistake. No device: the executor's own tests are in harness_test.
#include <gtest/gtest.h>

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
