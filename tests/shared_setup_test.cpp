// Issue 31: what the benchmark suite now shares between kernels and modes, on lavapipe. One upload serves every
// kernel of a problem that reads the same input; kernels that expect the same output check against one reference;
// a kernel's cold mode right after its hot one is not warmed up.
#include <gtest/gtest.h>

#include <memory>

#include "families/kernel_family.h"
#include "families/postfx/postfx_family.h"
#include "run/gpu_timer.h"
#include "families/kernel_input.h"
#include "suite/kernel_run.h"
#include "lavapipe_device.h"
#include "suite/suite_inputs.h"

using namespace shaderwatch;

namespace {

CheckResult run_on(const KernelSpec& spec, const Problem& problem, std::shared_ptr<const KernelInput> input) {
  LavapipeDevice& v = lavapipe();
  KernelRun run(*v.device, v.compiler, spec, problem, 0, std::move(input));
  v.device->submit_and_wait([&](VkCommandBuffer cmd) {
    run.record_poison(cmd);
    run.record(cmd);
  });
  return run.check();
}

}  // namespace

TEST(SharedInput, KernelsOfOneVariantPassOnOneUploadAndOtherVariantsGetTheirOwn) {
  const Problem image = make_postfx_problem(InputKind::HdrTest, 96, 40, 5);
  const KernelSpec& reinhard = find_kernel("postfx/tonemap_reinhard");
  const KernelSpec& hable = find_kernel("postfx/tonemap_hable");
  const KernelSpec& to_yxy = find_kernel("postfx/rgb_to_yxy");
  ASSERT_EQ(kernel_input_variant(reinhard), kernel_input_variant(hable));
  ASSERT_NE(kernel_input_variant(reinhard), kernel_input_variant(to_yxy)) << "Yxy and RGB inputs must not be shared";
  const auto yxy = make_kernel_input(*lavapipe().device, reinhard, image);
  EXPECT_EQ(run_on(reinhard, image, yxy).status, CheckStatus::Pass);
  EXPECT_EQ(run_on(hable, image, yxy).status, CheckStatus::Pass);
  // The RGB kernel's own input is other pixels (the check compares with the input as uploaded, so sharing the
  // Yxy one would time and check it on the wrong image without failing: the variants keep them apart).
  const auto rgb = make_kernel_input(*lavapipe().device, to_yxy, image);
  ASSERT_TRUE(rgb->derived.data && yxy->derived.data);
  EXPECT_NE(*rgb->derived.data, *yxy->derived.data);
  EXPECT_EQ(run_on(to_yxy, image, rgb).status, CheckStatus::Pass);
  // Every luminance kernel reads the data as is: one variant.
  const Problem lum = make_luminance_problem(InputKind::Random, 64, 48, 5);
  const auto shared = make_kernel_input(*lavapipe().device, find_kernel("lum/sequential_256"), lum);
  EXPECT_EQ(run_on(find_kernel("lum/sequential_256"), lum, shared).status, CheckStatus::Pass);
  EXPECT_EQ(run_on(find_kernel("lum/grid_stride_vec4"), lum, shared).status, CheckStatus::Pass);
}

TEST(SharedReferences, MadeOnceForTheAnnouncedChecksThenLetGoAndKeptApartByKey) {
  SharedReferences shared;
  shared.expect("blur r16");
  shared.expect("blur r16");
  int calls = 0;
  auto make = [&](int value) { return std::function<int()>([&calls, value] { return ++calls, value; }); };
  const auto first = shared.get<int>("blur r16", make(16));
  const auto second = shared.get<int>("blur r16", make(99));
  EXPECT_EQ(first, second) << "the second announced check made its own";
  EXPECT_EQ(*second, 16);
  EXPECT_EQ(*shared.get<int>("coc", make(7)), 7) << "another key shares nothing";
  // A third check of the key was not announced: the reference was let go after the second, so it makes its own.
  EXPECT_EQ(*shared.get<int>("blur r16", make(17)), 17);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(shared.made(), 3);
}

TEST(SharedInput, TheTwoBlursOfOneRadiusCheckAgainstOneReference) {
  const KernelSpec& naive = find_kernel("postfx/blur_naive_r16");
  const KernelSpec& staged = find_kernel("postfx/blur_shared_r16");
  const KernelSpec& reinhard = find_kernel("postfx/tonemap_reinhard");
  const SizeSpec size{80, 36, 0};
  SuiteInputs inputs({{&naive, size}, {&staged, size}, {&reinhard, size}}, 5);
  const Problem& image = inputs.problem(naive, size);
  const DerivedInput& derived = inputs.derived(naive, size);
  ASSERT_TRUE(derived.references);
  ASSERT_EQ(inputs.derived(staged, size).references, derived.references) << "both blurs read the RGB image";
  const auto input = upload_kernel_input(*lavapipe().device, naive, image, derived);
  EXPECT_EQ(run_on(naive, image, input).status, CheckStatus::Pass);
  EXPECT_EQ(run_on(staged, image, input).status, CheckStatus::Pass);
  EXPECT_EQ(derived.references->made(), 1) << "each blur made its own reference";
  const DerivedInput& yxy = inputs.derived(reinhard, size);
  EXPECT_EQ(run_on(reinhard, image, upload_kernel_input(*lavapipe().device, reinhard, image, yxy)).status, CheckStatus::Pass);
  EXPECT_EQ(yxy.references->made(), 1);
}

TEST(WarmSampling, AKernelJustSampledIsNotWarmedUpAgainUnlessTheGpuSatIdle) {
  SampledKernel kernel(64, 48);
  SamplingOptions options = short_sampling(0.2);
  options.warmup_seconds = 0.02;  // a least warm-up, so that one shows
  EXPECT_GE(kernel.sample(options, false, false).warmup_wall_seconds, 0.02);
  EXPECT_LT(kernel.sample(options, true, true).warmup_wall_seconds, 1e-4) << "the cold mode right after the hot one: no dispatch";
  options.long_idle_seconds = 0;  // as if the GPU had sat idle long since: warmed up again
  EXPECT_GT(kernel.sample(options, true, true).warmup_wall_seconds, 1e-3);
}
