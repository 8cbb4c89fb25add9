// Every catalog kernel on a real Vulkan driver (lavapipe where there is no GPU) under the Khronos
// validation layer: any validation error or warning fails the test, as does any wrong element.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <cstdio>
#include <cstring>
#include <memory>
#include <regex>

#include "run/bandwidth_probes.h"
#include "suite/check_suite.h"
#include "vulkan/kernel_sources.h"
#include "postfx.h"
#include "families/postfx/postfx_check.h"
#include "families/kernel_family.h"
#include "inputs/inputs.h"
#include "vulkan/pipeline_statistics.h"
#include "vulkan/spirv_module.h"
#include "run_command.h"
#include "families/boids/boids_family.h"
#include "families/luminance/luminance_family.h"
#include "families/postfx/postfx_family.h"

using namespace shaderwatch;

namespace {

struct Vulkan {
  std::unique_ptr<Instance> instance;
  std::unique_ptr<Device> device;
  std::unique_ptr<ShaderCompiler> compiler;
};

Vulkan& vulkan() {
  static Vulkan v = [] {
    Vulkan v;
    v.instance = std::make_unique<Instance>(/*validation=*/true);
    v.device = std::make_unique<Device>(*v.instance, v.instance->select(""));
    v.compiler = std::make_unique<ShaderCompiler>();
    return v;
  }();
  return v;
}

void expect_no_validation_messages() {
  for (const auto& m : vulkan().instance->validation_log().take()) ADD_FAILURE() << m;
}

// Poison the outputs, run the kernel once, wait: what --check does before reading back.
void poison_and_run(Vulkan& v, const KernelRun& run) {
  v.device->submit_and_wait([&](VkCommandBuffer cmd) {
    run.record_poison(cmd);
    run.record(cmd);
  });
}

bool on_lavapipe() { return vulkan().device->info().driver_id == VK_DRIVER_ID_MESA_LLVMPIPE; }

class EveryKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryKernel, MatchesTheReferenceOnEveryTestInput) {
  const KernelSpec& spec = find_kernel(GetParam());
  Vulkan& v = vulkan();
  const auto summary = run_check_suite(*v.device, *v.compiler, std::regex("^" + spec.name + "$"), 20261121,
                                       default_check_cases(v.device->info()), CheckPolicy{}, nullptr);
  // The one entry for problems of any size (min_items 1) is the negative control's.
  const bool negative_control = builtin_expectations().find(spec.name, v.device->info(), 1) != nullptr;
  ASSERT_GE(summary.rows.size(), 4u) << "the kernel ran on too few inputs";
  for (const auto& row : summary.rows) {
    SCOPED_TRACE(row.kernel + " " + row.size + " " + row.input + " seed " + std::to_string(row.seed));
    const CheckResult& o = row.outcome;
    if (negative_control) {
      EXPECT_TRUE(o.status == CheckStatus::ExpectedFail || o.status == CheckStatus::UnexpectedPass) << status_name(o.status) << " " << o.message;
      EXPECT_EQ(o.expectation, "negative control");
    } else if (o.expectation == "llvmpipe loop limit") {  // one invocation's loop of 65,536 positions or more
      EXPECT_TRUE(on_lavapipe());
      EXPECT_TRUE(o.status == CheckStatus::ExpectedFail || o.status == CheckStatus::UnexpectedPass) << status_name(o.status);
    } else {
      EXPECT_EQ(status_name(o.status), "PASS") << o.message << "\n" << o.first_failure;
      EXPECT_LE(o.worst_ratio, 1.0);
      EXPECT_GT(o.elements_checked, 0u);
    }
  }
  expect_no_validation_messages();
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : catalog()) names.push_back(k.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Catalog, EveryKernel, ::testing::ValuesIn(kernel_names()), [](const auto& info) {
  return std::regex_replace(info.param, std::regex("[^A-Za-z0-9]"), "_");
});

TEST(NegativeControl, RaceIsCaughtOnLavapipe) {
  // lavapipe runs a workgroup's 8-wide subgroups one after another between barriers, so the literal
  // warp-synchronous tail reads shared memory before other subgroups write it: a wrong answer each time.
  if (!on_lavapipe()) GTEST_SKIP() << "the race shows deterministically on lavapipe only";
  Vulkan& v = vulkan();
  const auto problem = make_luminance_problem(InputKind::Random, 1920, 1080, 5);
  const KernelSpec& spec = find_kernel("lum/unrolled_literal_256");
  const CheckResult raw = run_and_check(*v.device, *v.compiler, spec, problem);
  EXPECT_EQ(raw.status, CheckStatus::Fail) << "the race, seen as a wrong answer";
  EXPECT_NE(raw.first_failure.find("tile"), std::string::npos) << raw.first_failure;
  // kernels/expectations.json's entry turns it into the expected failure.
  const CheckResult o = apply_expectation(builtin_expectations().find(spec.name, v.device->info(), problem.items()), raw, [] {
    ADD_FAILURE() << "an expected failure is not rerun";
    return CheckResult{};
  });
  EXPECT_EQ(o.status, CheckStatus::ExpectedFail);
  EXPECT_EQ(o.expectation, "negative control");
  EXPECT_FALSE(is_unexpected_failure(o.status));
  expect_no_validation_messages();
}

// An entry of a runner's own file, applied by the correctness suite on this device: skip runs nothing;
// --corrupt-output makes every check of a sound kernel fail, and an expected-fail entry accounts for it;
// a flaky entry reruns a failing check, which still fails every time here.
TEST(Expectations, TheCheckSuiteAppliesSkipExpectedFailAndFlakyEntries) {
  Vulkan& v = vulkan();
  const std::regex one("^lum/sequential_256$");
  const std::vector<CheckCase> cases{{Family::Luminance, InputKind::Random, {64, 40, 0}},
                                     {Family::Luminance, InputKind::Random, {17, 3, 0}}};
  auto with_entry = [&](const std::string& expect, bool corrupt) {
    CheckPolicy policy;
    const std::string driver = driver_text(v.device->info());
    policy.expectations.add_json(R"({"expectations": [{"id": "test entry", "kernel": "lum/seq*_256", "device": ")" +
                                     v.device->info().name + R"(", "driver": ")" + driver.substr(0, 4) + R"(*", "expect": ")" +
                                     expect + (expect == "flaky" ? R"(", "reruns": 2, )" : R"(", )") +
                                     R"("reason": "bug 123"}]})",
                                 "test");
    if (corrupt) policy.corrupt_output = "lum/sequential_*";
    return run_check_suite(*v.device, *v.compiler, one, 7, cases, policy, nullptr);
  };
  CheckSummary corrupted = run_check_suite(*v.device, *v.compiler, one, 7, cases, [] {
    CheckPolicy p;
    p.corrupt_output = "lum/sequential_256";
    return p;
  }(), nullptr);
  ASSERT_EQ(corrupted.rows.size(), 2u);
  for (const auto& row : corrupted.rows) EXPECT_EQ(row.outcome.status, CheckStatus::Fail) << row.outcome.message;
  EXPECT_EQ(corrupted.unexpected_failures(), 2u);

  const CheckSummary skipped = with_entry("skip", false);
  ASSERT_EQ(skipped.rows.size(), 2u);
  for (const auto& row : skipped.rows) {
    EXPECT_EQ(row.outcome.status, CheckStatus::Skipped);
    EXPECT_EQ(row.outcome.elements_checked, 0u) << "a skipped kernel is not run";
    EXPECT_NE(row.outcome.message.find("bug 123"), std::string::npos) << row.outcome.message;
  }
  const CheckSummary expected = with_entry("fail", true);
  for (const auto& row : expected.rows) EXPECT_EQ(row.outcome.status, CheckStatus::ExpectedFail) << row.outcome.message;
  EXPECT_EQ(expected.unexpected_failures(), 0u);
  const CheckSummary right = with_entry("fail", false);
  for (const auto& row : right.rows) EXPECT_EQ(row.outcome.status, CheckStatus::UnexpectedPass);
  EXPECT_EQ(right.unexpected_failures(), 0u);
  const CheckSummary flaky = with_entry("flaky", true);
  for (const auto& row : flaky.rows) {
    EXPECT_EQ(row.outcome.status, CheckStatus::Fail);
    EXPECT_NE(row.outcome.message.find("all 3 checks failed"), std::string::npos) << row.outcome.message;
  }
  EXPECT_EQ(flaky.unexpected_failures(), 2u);
  expect_no_validation_messages();
}

// Issue 14, items 1 and 2: what a kernel must leave as it found it is checked after every run, beside
// its answer. A guard zone after the output and after the intermediate buffer must still hold the
// poison, and the atomic counter of a single-pass kernel must be back at zero: the harness zeroes it
// once, at setup, and no longer before every run (doing the kernel's job for it).
// The roofline's copy and write probes must touch every element in both access patterns: one that skipped
// some would report a bandwidth too high, and every kernel's % of roofline too low. A partial last row
// and a partial last tile of the tiled pattern's image.
TEST(BandwidthProbes, EveryPatternCopiesOrWritesEveryElement) {
  Vulkan& v = vulkan();
  const uint32_t count = kProbeImageWidth * 17 + 100;
  std::vector<float> data(4 * size_t{count});
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 4 == 3 ? 1 : i / 4 + i % 4);
  for (bool tiled : {false, true}) {
    for (bool write_only : {false, true}) {
      SCOPED_TRACE(std::string(tiled ? "tiled" : "grid-stride") + (write_only ? ", write only" : ", copy"));
      Buffer src(*v.device, data.size() * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
      Buffer dst(*v.device, data.size() * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
      src.upload(data.data(), data.size() * 4);
      const CopyProbe probe(*v.device, *v.compiler, src, dst, write_only, tiled);
      v.device->submit_and_wait([&](VkCommandBuffer cmd) {
        vkCmdFillBuffer(cmd, dst.handle(), 0, VK_WHOLE_SIZE, 0xFFFFFFFFu);  // NaN: never an expected value
        const VkMemoryBarrier fill{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT,
                                   VK_ACCESS_SHADER_WRITE_BIT};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &fill, 0,
                             nullptr, 0, nullptr);
        probe.record(cmd);
      });
      std::vector<float> out(data.size());
      dst.download(out.data(), out.size() * 4);
      size_t wrong = 0, first = out.size();
      for (size_t i = 0; i < out.size(); ++i) {
        const float expected = write_only ? static_cast<float>(i / 4) : data[i];
        if (out[i] != expected && wrong++ == 0) first = i;
      }
      EXPECT_EQ(wrong, 0u) << "first wrong float " << first << " of " << out.size();
    }
  }
  expect_no_validation_messages();
}

TEST(KernelState, AWritePastAnOutputsEndFailsTheCheck) {
  Vulkan& v = vulkan();
  for (const char* name : {"lum/sequential_256", "postfx/blur_shared_r16"}) {
    SCOPED_TRACE(name);
    const KernelSpec& spec = find_kernel(name);
    const auto problem = spec.family == Family::Postfx ? make_postfx_problem(InputKind::HdrTest, 64, 40, 3)
                                                       : make_luminance_problem(InputKind::Random, 64, 40, 3);
    KernelRun run(*v.device, *v.compiler, spec, problem);
    poison_and_run(v, run);
    const Readback clean = run.read_outputs();
    ASSERT_EQ(run.check(clean).status, CheckStatus::Pass);
    ASSERT_GE(clean.bytes.size(), 256u);
    Readback past_output = clean.copy();  // one float written just past the end: the first guard word
    const float one = 1.0f;
    std::memcpy(past_output.bytes.data() + past_output.bytes.size() - 256, &one, 4);
    const CheckResult o = run.check(past_output);
    EXPECT_EQ(o.status, CheckStatus::Fail);
    EXPECT_NE(o.message.find("wrote past the end of its output: guard byte 0"), std::string::npos) << o.message;
    if (spec.family == Family::Postfx) {  // the blur's x pass writes an intermediate image
      ASSERT_EQ(clean.partials_guard.size(), 256u);
      Readback past_partials = clean.copy();
      std::memcpy(past_partials.partials_guard.data() + 8, &one, 4);
      const CheckResult p = run.check(past_partials);
      EXPECT_EQ(p.status, CheckStatus::Fail);
      EXPECT_NE(p.message.find("past the end of its intermediate buffer: guard byte 8"), std::string::npos) << p.message;
    }
  }
  expect_no_validation_messages();
}

// Issue 14, item 5: --check --repeat N runs each case N times on one setup; a kernel whose order is fixed
// must give the same bits every time, so a race that shows on some runs fails.
TEST(KernelState, RepeatedRunsMustGiveTheSameBits) {
  Vulkan& v = vulkan();
  const auto problem = make_luminance_problem(InputKind::Random, 333, 77, 9);
  const CheckResult o = run_and_check(*v.device, *v.compiler, find_kernel("lum/single_pass_atomic"), problem, false, 5);
  EXPECT_EQ(o.status, CheckStatus::Pass) << o.message;
  EXPECT_EQ(o.message, "5 runs, bit-identical");
  const Readback a = Readback::of({1, 2, 3, 4});
  Readback b = a.copy();
  EXPECT_FALSE(first_difference(a, b));
  b.bytes[2] = 9;
  EXPECT_EQ(first_difference(a, b), 2u);
  b = Readback::of({1, 2, 3, 4, 0});
  EXPECT_EQ(first_difference(a, b), 4u) << "a longer readback differs where the shorter ends";
}

TEST(KernelState, TheAtomicCounterIsTheKernelsToReset) {
  Vulkan& v = vulkan();
  for (const char* name : {"lum/single_pass_atomic", "lum/log_average_exposure"}) {
    SCOPED_TRACE(name);
    const auto problem = make_luminance_problem(InputKind::Random, 333, 77, 5);
    KernelRun run(*v.device, *v.compiler, find_kernel(name), problem);
    // Three runs, poisoned once: only the kernel resets its counter between them.
    v.device->submit_and_wait([&](VkCommandBuffer cmd) {
      run.record_poison(cmd);
      for (int i = 0; i < 3; ++i) {
        run.record(cmd);
        full_barrier(cmd);
      }
    });
    const Readback got = run.read_outputs();
    ASSERT_TRUE(got.counter.has_value());
    EXPECT_EQ(*got.counter, 0u);
    EXPECT_EQ(run.check(got).status, CheckStatus::Pass);
    Readback stale = got.copy();  // a kernel that leaves its count behind
    stale.counter = 3;
    const CheckResult o = run.check(stale);
    EXPECT_EQ(o.status, CheckStatus::Fail);
    EXPECT_NE(o.message.find("left its atomic counter at 3"), std::string::npos) << o.message;
  }
  expect_no_validation_messages();
}

// The one executor runs what a plan says (kernels/dispatch_plan.h): each part of a catalog plan, changed, changes
// the answer enough for the check to fail; unchanged, it passes.
TEST(DispatchPlan, TheExecutorRunsWhatThePlanSays) {
  Vulkan& v = vulkan();
  struct Case {
    const char* kernel;
    const char* change;
    std::function<void(DispatchPlan&)> mutate;
  };
  const Case cases[] = {
      {"boids/minmax_atomic", "the atomics' identities swapped",
       [](DispatchPlan& p) { std::swap(p.buffers[0].fills[0].value, p.buffers[0].fills[1].value); }},
      {"boids/two_pass_rows", "the second pass pushed 63 slices of 64", [](DispatchPlan& p) { p.passes[1].push[0].value = 63; }},
      {"postfx/dof_composite", "the passes in the wrong order", [](DispatchPlan& p) { std::swap(p.passes[0], p.passes[1]); }},
      {"postfx/tonemap_reinhard", "without the family's parameters", [](DispatchPlan& p) { p.passes[0].push.pop_back(); }},
      {"lum/sequential_256", "the width pushed as 32", [](DispatchPlan& p) { p.passes[0].push[0] = {PushWord::Kind::Value, 32}; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.kernel) + ", " + c.change);
    KernelSpec spec = find_kernel(c.kernel);
    const Problem problem = spec.family == Family::Boids    ? make_boids_problem(InputKind::Random, 5000, 4)
                            : spec.family == Family::Postfx ? make_postfx_problem(InputKind::HdrTest, 64, 48, 4)
                                                            : make_luminance_problem(InputKind::Random, 64, 48, 4);
    EXPECT_EQ(run_and_check(*v.device, *v.compiler, spec, problem).status, CheckStatus::Pass);
    c.mutate(*spec.plan);
    EXPECT_EQ(run_and_check(*v.device, *v.compiler, spec, problem).status, CheckStatus::Fail);
  }
  expect_no_validation_messages();
}

TEST(Check, AWrongAnswerIsCaughtAndNamed) {
  // The GPU sums the original image; the reference, computed at the first check, then sees one pixel
  // changed by a few times the tolerance of its tile. The check must fail and name that tile.
  Vulkan& v = vulkan();
  const KernelSpec& spec = find_kernel("lum/sequential_256");
  auto problem = make_luminance_problem(InputKind::Random, 64, 40, 11);
  EXPECT_EQ(run_and_check(*v.device, *v.compiler, spec, problem).status, CheckStatus::Pass);
  KernelRun run(*v.device, *v.compiler, spec, problem);
  poison_and_run(v, run);
  const uint32_t x = 40, y = 20;  // tile (2, 1) of the 4x3 partial image
  problem.data[(y * 64 + x) * 4 + 1] += 0.01f;  // L changes by ~0.007; the tile bound is ~1e-4
  const CheckResult o = run.check();
  EXPECT_EQ(o.status, CheckStatus::Fail);
  EXPECT_NE(o.first_failure.find("tile 2,1"), std::string::npos) << o.first_failure;
  expect_no_validation_messages();
}

TEST(Postfx, ColourRoundTripOnTheGpuStaysWithinItsBound) {
  // RGB -> Yxy on the GPU, its output fed back through Yxy -> RGB on the GPU; the result is compared with
  // the original through both formulas, their errors tracked end to end.
  Vulkan& v = vulkan();
  const auto problem = make_postfx_problem(InputKind::HdrTest, 96, 64, 5);
  KernelRun forward(*v.device, *v.compiler, find_kernel("postfx/rgb_to_yxy"), problem);
  v.device->submit_and_wait([&](VkCommandBuffer cmd) { forward.record(cmd); });
  ASSERT_EQ(forward.check().status, CheckStatus::Pass);

  KernelSpec back = find_kernel("postfx/yxy_to_rgb");
  back.input_space = PixelSpace::Rgb;  // take the GPU's Yxy as it is
  Problem yxy = problem;
  yxy.data = forward.output_pixels();
  KernelRun inverse(*v.device, *v.compiler, back, yxy);
  v.device->submit_and_wait([&](VkCommandBuffer cmd) { inverse.record(cmd); });
  const auto round_trip = inverse.output_pixels();
  double worst = 0;
  for (size_t i = 0; i < problem.items(); ++i) {
    const float* rgb = &problem.data[i * 4];
    using reference::Tracked;
    const auto expected = reference::yxy_to_rgb(reference::rgb_to_yxy(
        reference::Vec3<Tracked>{Tracked(rgb[0]), Tracked(rgb[1]), Tracked(rgb[2])}));
    const Tracked channels[3] = {expected.a, expected.b, expected.c};
    for (int c = 0; c < 3; ++c) {
      const double ratio = std::fabs(round_trip[i * 4 + c] - channels[c].value) / (2 * channels[c].error);
      ASSERT_LE(ratio, 1.0) << "pixel " << i << " channel " << c << ": " << round_trip[i * 4 + c] << " vs "
                            << channels[c].value << " +- " << 2 * channels[c].error;
      worst = std::max(worst, ratio);
    }
  }
  EXPECT_GT(worst, 0.0);  // the comparison saw real rounding, not identical copies
  expect_no_validation_messages();
}

TEST(Postfx, DepthOfFieldKeepsFocusSharpBlursFarAndCoversNear) {
  // What a person expects of the composite, independent of the reference's formulas: on 320x180 the left
  // third is near, the middle in focus, the right far, with a near band across rows 72-89, and lone near
  // pixels (1 in 2000) over the focus and far thirds.
  Vulkan& v = vulkan();
  const uint32_t width = 320, height = 180;
  const auto problem = make_postfx_problem(InputKind::HdrTest, width, height, 9);
  const KernelSpec& spec = find_kernel("postfx/dof_composite");
  KernelRun run(*v.device, *v.compiler, spec, problem);
  poison_and_run(v, run);
  ASSERT_EQ(run.check().status, CheckStatus::Pass);
  const auto out = run.output_pixels();
  const auto in = postfx_input(spec, problem);
  auto at = [&](const std::vector<float>& image, uint32_t x, uint32_t y, int c) { return image[(y * width + x) * 4 + c]; };
  // Whether a near pixel (nearer than the 5 m focus) lies within the CoC clamp (8) plus one of (x, y).
  auto near_within_reach = [&](uint32_t x, uint32_t y) {
    for (uint32_t yy = y > 9 ? y - 9 : 0; yy <= std::min(y + 9, height - 1); ++yy)
      for (uint32_t xx = x > 9 ? x - 9 : 0; xx <= std::min(x + 9, width - 1); ++xx)
        if (at(in, xx, yy, 3) < 5.0f) return true;
    return false;
  };
  // In focus, out of every near pixel's reach: the input itself, no near coverage.
  uint32_t focus_checked = 0;
  for (uint32_t y = 5; y < 70; y += 5) {
    if (near_within_reach(160, y)) continue;
    ++focus_checked;
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(at(out, 160, y, c), at(in, 160, y, c), 1e-6 * at(in, 160, y, c)) << y << " " << c;
    EXPECT_EQ(at(out, 160, y, 3), 0.0f) << y;
  }
  EXPECT_GE(focus_checked, 5u);
  // Deep in the near third: covered by the near field.
  EXPECT_GT(at(out, 50, 140, 3), 0.8f);
  // A lone near pixel covers its neighbourhood in the focus and far thirds.
  bool lone_covers = false;
  for (uint32_t y = 0; y < 70 && !lone_covers; ++y)
    for (uint32_t x = width / 3; x < width && !lone_covers; ++x) lone_covers = at(in, x, y, 3) < 5.0f && at(out, x, y, 3) > 0.0f;
  EXPECT_TRUE(lone_covers);
  // Far: a blend of its neighbourhood (within the CoC clamp plus one), not the pixel itself; no near
  // coverage where no near pixel reaches.
  bool blurred = false;
  uint32_t far_checked = 0;
  for (uint32_t y = 100; y < 180; y += 3) {
    if (near_within_reach(280, y)) continue;
    ++far_checked;
    for (int c = 0; c < 3; ++c) {
      float lo = INFINITY, hi = -INFINITY;
      for (uint32_t yy = y - 9; yy <= std::min(y + 9, height - 1); ++yy)
        for (uint32_t xx = 280 - 9; xx <= 280 + 9; ++xx) {
          lo = std::min(lo, at(in, xx, yy, c));
          hi = std::max(hi, at(in, xx, yy, c));
        }
      EXPECT_GE(at(out, 280, y, c), lo * (1 - 1e-5f)) << y;
      EXPECT_LE(at(out, 280, y, c), hi * (1 + 1e-5f)) << y;
      blurred |= std::fabs(at(out, 280, y, c) - at(in, 280, y, c)) > 1e-3f * at(in, 280, y, c);
    }
    EXPECT_EQ(at(out, 280, y, 3), 0.0f) << y;
  }
  EXPECT_GE(far_checked, 5u);
  EXPECT_TRUE(blurred);
  expect_no_validation_messages();
}

TEST(Check, UnwrittenOutputsArePoisonAndFail) {
  Vulkan& v = vulkan();
  const auto problem = make_boids_problem(InputKind::Random, 100, 3);
  KernelRun run(*v.device, *v.compiler, find_kernel("boids/two_pass_rows"), problem);
  v.device->submit_and_wait([&](VkCommandBuffer cmd) { run.record_poison(cmd); });  // no dispatch
  const CheckResult o = run.check();
  EXPECT_EQ(o.status, CheckStatus::Fail);
  EXPECT_NE(o.first_failure.find("got nan"), std::string::npos) << o.first_failure;
  expect_no_validation_messages();
}

// A submission past the timeout loses its device: the kernel's run is an ERROR naming it, every later one on
// that device is reported as not run without touching it, and another device goes on. (lavapipe caps its
// loops, so no kernel hangs here: a timeout far below one dispatch's time stands in for a hang.)
TEST(DeviceLoss, ATimedOutSubmissionLosesTheDeviceAndTheRestIsReportedNotRun) {
  // Its own instance, never destroyed: the timed-out work may still run in the driver after the test.
  static Instance* instance = new Instance(/*validation=*/false);
  auto* device = new Device(*instance, instance->select(""));  // left as it is once lost, as in the bench
  ShaderCompiler compiler;
  const Problem problem = make_boids_problem(InputKind::Random, 65537, 4);
  const KernelSpec& spec = find_kernel("boids/single_invocation");
  KernelRun run(*device, compiler, spec, problem);
  device->set_submit_timeout(1e-9);
  // A hundred dispatches in one submission (tens of ms on lavapipe), so the wait starts long before they end;
  // tried a few times, as a loaded machine may still finish one before the wait begins.
  int lost_at = -1;
  for (int attempt = 0; attempt < 5 && lost_at < 0; ++attempt) {
    try {
      device->submit_and_wait([&](VkCommandBuffer cmd) {
        for (int i = 0; i < 100; ++i) run.record(cmd);
      });
    } catch (const DeviceLostError&) {
      lost_at = attempt;
    }
  }
  ASSERT_GE(lost_at, 0) << "five submissions of 100 dispatches each finished within 1 ns";
  EXPECT_NE(device->lost().find("did not finish within"), std::string::npos) << device->lost();
  EXPECT_THROW(device->submit_and_wait([](VkCommandBuffer) {}), DeviceLostError) << "nothing more runs on it";
  const CheckResult o = run_and_check(*device, compiler, spec, problem);
  EXPECT_EQ(o.status, CheckStatus::Error);
  EXPECT_NE(o.message.find("was lost earlier"), std::string::npos) << o.message;

  CheckPolicy policy;
  policy.gpu_timeout_s = 1e-9;
  const auto summary = run_check_suite(*device, compiler, std::regex("^boids/groupshared$"), 1,
                                       {{Family::Boids, InputKind::Random, {0, 0, 1000}}}, policy, {});
  ASSERT_EQ(summary.rows.size(), 1u);
  EXPECT_EQ(summary.rows[0].outcome.status, CheckStatus::Error);
  EXPECT_NE(summary.rows[0].outcome.message.find("not run"), std::string::npos) << summary.rows[0].outcome.message;
  EXPECT_EQ(summary.unexpected_failures(), 1u);

  // The rest goes on: the shared device runs the same kernel and passes.
  Vulkan& v = vulkan();
  EXPECT_EQ(run_and_check(*v.device, *v.compiler, spec, problem).status, CheckStatus::Pass);
}

TEST(SubgroupSize, RequirableSizesArePowersOfTwoThatFitTheWorkgroup) {
  DeviceInfo d;
  d.min_subgroup_size = 8;
  d.max_subgroup_size = 64;
  d.compute_subgroup_size_control = true;
  d.max_compute_workgroup_subgroups = 32;
  EXPECT_EQ(d.requirable_subgroup_sizes(256), (std::vector<uint32_t>{8, 16, 32, 64}));
  d.max_compute_workgroup_subgroups = 16;  // 256 invocations need 32 subgroups of 8: too many
  EXPECT_EQ(d.requirable_subgroup_sizes(256), (std::vector<uint32_t>{16, 32, 64}));
  d.min_subgroup_size = d.max_subgroup_size = 32;
  EXPECT_EQ(d.requirable_subgroup_sizes(256), (std::vector<uint32_t>{32}));
  d.compute_subgroup_size_control = false;
  EXPECT_TRUE(d.requirable_subgroup_sizes(256).empty()) << "a device that cannot require one runs at its default";
}

// Subgroup kernels run at every requirable size (lavapipe: 8 only, so the same answers, through the
// required-size pipeline path); a size the device cannot require is UNSUPPORTED, not a wrong answer.
TEST(SubgroupSize, SubgroupKernelsRunAtEveryRequirableSize) {
  Vulkan& v = vulkan();
  const auto sizes = v.device->info().requirable_subgroup_sizes(256);
  ASSERT_FALSE(sizes.empty()) << "lavapipe can require its subgroup size in compute shaders";
  const auto summary = run_check_suite(*v.device, *v.compiler, std::regex("^lum/subgroup_add_256$"), 3,
                                       {{Family::Luminance, InputKind::Random, {333, 77, 0}}}, CheckPolicy{}, {});
  ASSERT_EQ(summary.rows.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(summary.rows[i].input, "random/sg" + std::to_string(sizes[i]));
    EXPECT_EQ(summary.rows[i].outcome.status, CheckStatus::Pass) << summary.rows[i].outcome.message;
  }
  const Problem p = make_luminance_problem(InputKind::Random, 64, 64, 1);
  const uint32_t impossible = v.device->info().max_subgroup_size * 2;
  const CheckResult o = run_and_check(*v.device, *v.compiler, find_kernel("lum/subgroup_add_256"), p, false, 1, impossible);
  EXPECT_EQ(o.status, CheckStatus::Unsupported);
  EXPECT_NE(o.message.find("cannot be required"), std::string::npos) << o.message;
  expect_no_validation_messages();
}

TEST(Check, NanAndInfNeverPass) {
  ElementChecker c;
  c.check("a", 1.0, std::nan(""), 1e300);
  EXPECT_TRUE(c.failed());
  ElementChecker d;
  d.check("b", 1.0, INFINITY, INFINITY);
  EXPECT_TRUE(d.failed());
  ElementChecker e;
  e.check("c", 2.0, 2.0, 0.0);  // exact match with a zero bound passes
  e.check("d", 2.0, 2.0 + 1e-12, 1e-11);
  EXPECT_FALSE(e.failed());
  e.check("e", 2.0, 2.0 + 1e-12, 0.0);  // exact comparisons allow nothing
  EXPECT_TRUE(e.failed());
}

TEST(Check, BeyondTheProbabilisticBoundIsImprobableAndAFailureStillWins) {
  ElementChecker c;
  c.check("sum x", 100.0, 100.5, 1.0, 0.25);  // within the worst case, twice the probabilistic bound
  c.check("sum y", 100.0, 100.1, 1.0, 0.25);
  CheckResult o = c.outcome();
  EXPECT_EQ(o.status, CheckStatus::Improbable);
  EXPECT_TRUE(is_unexpected_failure(o.status)) << "CI gates on it";
  EXPECT_NEAR(o.probable_ratio, 2.0, 1e-9);
  EXPECT_NEAR(o.worst_ratio, 0.5, 1e-9);
  EXPECT_NE(o.first_failure.find("sum x (probabilistic bound)"), std::string::npos) << o.first_failure;
  EXPECT_NE(o.message.find("1 of 2 elements"), std::string::npos) << o.message;
  ElementChecker later;
  later.check("sum z", 1.0, 3.0, 1.0, 1.0);  // beyond the worst case: a failure
  c.merge(later);
  EXPECT_EQ(c.outcome().status, CheckStatus::Fail);
  ElementChecker fine;
  fine.check("sum", 100.0, 100.1, 1.0, 0.25);
  EXPECT_EQ(fine.outcome().status, CheckStatus::Pass);
  EXPECT_NEAR(fine.outcome().probable_ratio, 0.4, 1e-9);
}

TEST(Inputs, EmptyInputIsAClearErrorBeforeAnyDispatch) {
  EXPECT_THROW(make_luminance_problem(InputKind::Random, 0, 1080, 1), std::invalid_argument);
  EXPECT_THROW(make_luminance_problem(InputKind::Random, 1920, 0, 1), std::invalid_argument);
  EXPECT_THROW(make_boids_problem(InputKind::Random, 0, 1), std::invalid_argument);
  EXPECT_THROW(parse_size(SizeKind::Image, "1920by1080"), std::invalid_argument);
  EXPECT_THROW(parse_size(SizeKind::Count, "-5"), std::invalid_argument);
  EXPECT_EQ(parse_size(SizeKind::Image, "17x3").width, 17u);
}

TEST(Inputs, TheSeedReproducesTheData) {
  EXPECT_EQ(make_luminance_problem(InputKind::Random, 9, 9, 42).data, make_luminance_problem(InputKind::Random, 9, 9, 42).data);
  EXPECT_NE(make_luminance_problem(InputKind::Random, 9, 9, 42).data, make_luminance_problem(InputKind::Random, 9, 9, 43).data);
}

TEST(Device, ReportsWhatListDevicesPrints) {
  const DeviceInfo& d = vulkan().device->info();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.subgroup_size, 1u);
  EXPECT_GE(d.api_version, VK_API_VERSION_1_3);
  EXPECT_TRUE(std::regex_match(d.driver_version_string(), std::regex("[0-9]+(\\.[0-9]+)+")));
  if (on_lavapipe()) {
    EXPECT_EQ(d.subgroup_size, 8u);
  }
}

// The binary itself, as a user runs it.
std::pair<int, std::string> run_bench(const std::string& args, const std::string& env = "") {
  const auto r = run_command(env + " " + SHADERWATCH_BENCH + " " + args + " 2>&1");
  return {r.exit_code, r.output};
}

TEST(Cli, CheckPrintsTheTableAndExitsZero) {
  const auto [rc, out] = run_bench("--check --validation --seed 3 --filter 'sequential|minmax_atomic'");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("seed: 3"), std::string::npos) << out;
  EXPECT_NE(out.find("lum/sequential_256"), std::string::npos);
  EXPECT_NE(out.find("0 unexpected failures"), std::string::npos) << out;
}

// Each family's generator makes what its version in input_identity says (inputs/inputs.cpp): a change to what one
// makes fails here until its version goes up (and its checksum here with it). Libstdc++'s distributions, as CI's.
TEST(Inputs, EachGeneratorMakesWhatItsVersionSays) {
  const auto checksum = [](const shaderwatch::Problem& p) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the floats' bytes
    for (const float f : p.data) {
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      for (int b = 0; b < 4; ++b) h = (h ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ull;
    }
    return h;
  };
  using shaderwatch::InputKind;
  struct Pinned {
    shaderwatch::Family family;
    shaderwatch::InputKind kind;
    const char* identity;
    uint64_t checksum;
  };
  const Pinned pinned[] = {
      {shaderwatch::Family::Luminance, InputKind::Random, "random@1", 10134845794225288534ull},
      {shaderwatch::Family::Luminance, InputKind::Exponents, "exponents@1", 5831803300062543993ull},
      {shaderwatch::Family::Boids, InputKind::Random, "random@1", 11611942170681893737ull},
      {shaderwatch::Family::Postfx, InputKind::HdrTest, "hdr-test@1", 10332219263933673622ull},
  };
  for (const Pinned& p : pinned) {
    const auto& family = shaderwatch::kernel_family(p.family);
    const shaderwatch::SizeSpec size = family.size == shaderwatch::SizeKind::Image ? shaderwatch::SizeSpec{48, 32, 0}
                                                                                  : shaderwatch::SizeSpec{0, 0, 1000};
    EXPECT_EQ(shaderwatch::input_identity(p.family, p.kind), p.identity);
    EXPECT_EQ(checksum(family.make_problem(p.kind, size, 1)), p.checksum)
        << family.name << " " << p.identity << ": its generator makes something else now; raise its version in "
        << "inputs/inputs.cpp (generator_version) and pin the new checksum here";
  }
}

TEST(PipelineStatistics, AreWordsAsTheDriverTypedThem) {
  using shaderwatch::PipelineStatistic;
  const PipelineStatistic spills{"Spills", true}, stack{"Stack", int64_t{-8}}, registers{"Register Count", uint64_t{164}},
      occupancy{"Occupancy", 0.5};
  EXPECT_EQ(spills.value_text() + " " + stack.value_text() + " " + registers.value_text() + " " + occupancy.value_text(),
            "true -8 164 0.5");
  EXPECT_EQ(std::string(spills.format_name()) + " " + std::string(stack.format_name()) + " " +
                std::string(registers.format_name()) + " " + std::string(occupancy.format_name()),
            "bool32 int64 uint64 float64");
}

TEST(SpirvModule, ACpuDeviceGetsTheLoopsWithoutTheirUnrollHints) {
  using namespace shaderwatch;
  ShaderCompiler compiler;
  const auto& spirv = compiler.compile("postfx_dof_composite_staged.comp", {{"MAX_RADIUS", "8"}, {"BLOCK", "2"}});
  constexpr uint32_t kOpLoopMerge = 246, kUnroll = 0x1;
  const auto loop_controls = [](const std::vector<uint32_t>& module) {
    std::vector<uint32_t> controls;
    for_each_instruction(module, [&](uint32_t opcode, size_t at, uint32_t) {
      if (opcode == kOpLoopMerge) controls.push_back(module[at + 3]);
    });
    return controls;
  };
  const auto before = loop_controls(spirv);
  ASSERT_GT(std::count_if(before.begin(), before.end(), [](uint32_t c) { return (c & kUnroll) != 0; }), 0);
  const auto stripped = without_unroll_hints(spirv);
  const auto after = loop_controls(stripped);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i], before[i] & ~kUnroll);
  // Nothing else changes: the words differ only where a loop control lost its Unroll bit.
  ASSERT_EQ(stripped.size(), spirv.size());
  size_t changed = 0;
  for (size_t i = 0; i < spirv.size(); ++i) changed += stripped[i] != spirv[i];
  EXPECT_EQ(changed, static_cast<size_t>(std::count_if(before.begin(), before.end(), [](uint32_t c) { return (c & kUnroll) != 0; })));
}

TEST(Cli, ListsKernelsByStableNameFirst) {
  const auto [rc, out] = run_bench("--list-kernels");
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out.rfind("lum/interleaved_256 ", 0), 0u) << out;
  EXPECT_NE(out.find("\nboids/minmax_atomic "), std::string::npos);
}

TEST(Cli, ListsWhatADeviceCompiledOfEachKernel) {
  const auto [rc, out] = run_bench("--list-kernels --device 0 --filter 'lum/interleaved_256|two_pass_rows'");
  ASSERT_EQ(rc, 0) << out;
  const std::smatch device = [&] {
    std::smatch m;
    std::regex_search(out, m, std::regex("^device 0: .*: pipeline statistics (captured|unavailable: .+)\n"));
    return m;
  }();
  ASSERT_FALSE(device.empty()) << out;
  const bool captured = device[1] == "captured";
  EXPECT_TRUE(std::regex_search(out, std::regex("\nlum/interleaved_256  spirv:[0-9a-f]{16} input:random@1\n"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("\nboids/two_pass_rows  spirv:[0-9a-f]{32} input:random@1\n"))) << out;
  EXPECT_EQ(out.find("lum/sequential_256"), std::string::npos) << "the filter holds";
  // Where the driver reports statistics, each pipeline's executables follow their kernel (two for two passes).
  EXPECT_EQ(std::regex_search(out, std::regex(R"(\n  pipeline 1 .*\(subgroup \d+\):( [^=\n]+=\S+)+\n)")), captured) << out;
}

TEST(Cli, BadArgumentsAreNamed) {
  auto [rc, out] = run_bench("--check --device no-such-gpu");
  EXPECT_EQ(rc, 4) << "an unknown device is a configuration mistake";
  EXPECT_NE(out.find("no-such-gpu"), std::string::npos) << out;
  std::tie(rc, out) = run_bench("--check --filter 'nothing-matches'");
  EXPECT_EQ(rc, 4);
  EXPECT_NE(out.find("matched no kernel"), std::string::npos) << out;
  std::tie(rc, out) = run_bench("--check --filter '('");
  EXPECT_EQ(rc, 4);
  std::tie(rc, out) = run_bench("--no-such-flag");
  EXPECT_EQ(rc, 4);
  EXPECT_NE(out.find("no-such-flag"), std::string::npos) << out;
  std::tie(rc, out) = run_bench("--check --device all");
  EXPECT_EQ(rc, 4);
}

TEST(Cli, GoogleBenchmarkFlagsItWouldTakeSilentlyAreRefused) {
  // Google Benchmark itself exits 0 on a bad format (a CI job would pass with no results) and takes a
  // negative repetition count; a negative seed used to wrap around to 2^64-1 and 2^64 was clamped to it; an
  // empty --sizes or --device meant the default. Each fails before any GPU work.
  for (const std::string flag : {"--benchmark_format=bogus", "--benchmark_out_format=bogus", "--benchmark_color=maybe",
                                 "--benchmark_repetitions=-1", "--benchmark_repetitions=0", "--v=x", "--seed=-1",
                                 "--seed=12x", "--seed=18446744073709551616", "--sizes=", "--device=", "--expectations=/nonexistent.json",
                                 "--corrupt-output=nope/*", "--kernels-dir=/nonexistent", "--repeat=3", "--repeat=0"}) {
    auto [rc, out] = run_bench("--quick --benchmark_filter=^lum/sequential_256/ " + flag);
    EXPECT_NE(rc, 0) << flag << ": " << out;
    const std::string name = flag.substr(0, flag.find('='));
    EXPECT_NE(out.find(name), std::string::npos) << flag << ": the message names no flag: " << out;
    EXPECT_EQ(out.find("bytes_per_second"), std::string::npos) << flag << ": it benchmarked anyway";
  }
}

TEST(Cli, WritesToneMappedImagesAndAContactSheet) {
  const std::string dir = ::testing::TempDir() + "shaderwatch_images";
  const auto [rc, out] = run_bench("--write-images " + dir);
  ASSERT_EQ(rc, 0) << out;
  for (const char* name : {"tonemap_reinhard.png", "tonemap_aces_narkowicz.png", "tonemap_aces_hill.png",
                           "tonemap_drago.png", "tonemap_day_insomniac.png", "coc.png", "dof_input.png",
                           "dof_composite.png", "contact_sheet.png"}) {
    FILE* f = std::fopen((dir + "/" + name).c_str(), "rb");
    ASSERT_NE(f, nullptr) << name;
    unsigned char header[24] = {};
    EXPECT_EQ(std::fread(header, 1, sizeof header, f), sizeof header);
    std::fclose(f);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(header) + 1, 3), "PNG") << name;
    const uint32_t width = (header[16] << 24) | (header[17] << 16) | (header[18] << 8) | header[19];
    EXPECT_EQ(width, std::string(name) == "contact_sheet.png" ? 5u * 644 - 4 : 640u) << name;  // 10 operators
  }
  // Operators differ: ACES and Reinhard must not write the same picture.
  auto slurp = [&](const std::string& name) {
    std::ifstream in(dir + "/" + name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_NE(slurp("tonemap_reinhard.png"), slurp("tonemap_aces_narkowicz.png"));
  EXPECT_NE(slurp("dof_input.png"), slurp("dof_composite.png"));
}

TEST(Cli, NoVulkanDeviceIsAClearError) {
  const auto [rc, out] =
      run_bench("--check", "VK_DRIVER_FILES=/nonexistent/icd.json VK_ICD_FILENAMES=/nonexistent/icd.json");
  EXPECT_EQ(rc, 3);
  EXPECT_TRUE(out.find("no Vulkan device") != std::string::npos || out.find("vkCreateInstance") != std::string::npos)
      << out;
}

}  // namespace

TEST(KernelSources, AreTheShadersAndWhatTheyIncludeOnce) {
  size_t with_includes = 0;
  for (const auto& k : catalog()) {
    const auto files = kernel_source_files(k);
    for (const auto& shader : k.shaders)
      EXPECT_NE(std::find(files.begin(), files.end(), shader.file), files.end()) << k.name << " " << shader.file;
    EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
    EXPECT_EQ(std::adjacent_find(files.begin(), files.end()), files.end()) << k.name;
    with_includes += files.size() > k.shaders.size();
  }
  EXPECT_GT(with_includes, catalog().size() / 2);
  // lum_stats.comp includes luminance_common.glsl and workgroup_sum.glsl, which includes race_delay.glsl.
  size_t stats_kernels = 0;
  for (const auto& k : catalog()) {
    if (k.shaders.size() != 1 || k.shaders[0].file != "lum_stats.comp") continue;
    ++stats_kernels;
    EXPECT_EQ(kernel_source_files(k),
              (std::vector<std::string>{"lum_stats.comp", "luminance_common.glsl", "race_delay.glsl", "workgroup_sum.glsl"}));
  }
  EXPECT_GE(stats_kernels, 1u);
}

// The GPU comparison ranks only variants of one operation: every entry names one, and the seeds' groups hold.
TEST(Catalog, EveryKernelNamesItsOperation) {
  std::map<std::string, std::vector<std::string>> by_operation;
  for (const auto& k : catalog()) {
    EXPECT_FALSE(k.operation.empty()) << k.name;
    by_operation[k.operation].push_back(k.name);
  }
  const auto& sums = by_operation["luminance sum"];
  EXPECT_EQ(std::count_if(sums.begin(), sums.end(), [](const std::string& n) { return !n.starts_with("lum/"); }), 0);
  EXPECT_EQ(std::find(sums.begin(), sums.end(), "lum/stats_sum_log_min_max"), sums.end());
  EXPECT_GE(sums.size(), 10u);
  const auto& tone = by_operation["tone mapping"];
  EXPECT_NE(std::find(tone.begin(), tone.end(), "postfx/tonemap_aces_hill"), tone.end());
  EXPECT_NE(std::find(tone.begin(), tone.end(), "postfx/tonemap_reinhard"), tone.end());
  EXPECT_EQ(std::find(tone.begin(), tone.end(), "postfx/dof_tiles"), tone.end());
  EXPECT_EQ(by_operation["boids min and max"].size(), 3u);
  EXPECT_EQ(find_kernel_or_null("lum/sequential_256"), &find_kernel("lum/sequential_256"));
  EXPECT_EQ(find_kernel_or_null("lum/no_such_kernel"), nullptr);
}
