// The check layer without a device: readbacks built by hand from the references, right and wrong, through
// AnswerCheck (harness/check/answer_check.h). No Vulkan object is created here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "check/answer_check.h"
#include "boids.h"
#include "families/boids/boids_family.h"
#include "families/kernel_family.h"
#include "families/luminance/luminance_family.h"
#include "families/postfx/postfx_check.h"
#include "families/postfx/postfx_family.h"

using namespace shaderwatch;

namespace {

// An output of `words` floats followed by its poisoned guard zone, as the runner reads it back.
Readback readback_of(const std::vector<float>& words) {
  Readback r = Readback::of(std::vector<unsigned char>(words.size() * sizeof(float) + kOutputGuardBytes));
  r.output_bytes = words.size() * sizeof(float);
  std::memcpy(r.bytes.data(), words.data(), r.output_bytes);
  for (size_t i = r.output_bytes; i < r.bytes.size(); i += 4) std::memcpy(r.bytes.data() + i, &kNaNBits, 4);
  return r;
}

RunShape tiled_shape(const KernelSpec& spec, const Problem& p, uint32_t subgroup_size = 32) {
  RunShape s;
  s.groups_x = (p.width + spec.tile_x - 1) / spec.tile_x;
  s.groups_y = (p.height + spec.tile_y - 1) / spec.tile_y;
  s.error_context = {subgroup_size, p.items(), s.groups()};
  return s;
}

// A one-workgroup boids kernel's shape.
RunShape single_group_shape(const Problem& p) {
  RunShape s;
  s.error_context = {32, p.items(), 1};
  return s;
}

// The float sums a correct tiled luminance kernel writes: the reference per tile, rounded to float.
std::vector<float> right_tile_sums(const KernelSpec& spec, const Problem& p, const RunShape& shape) {
  std::vector<float> out;
  for (const auto& g : expected_luminance(spec, p, shape)) out.push_back(static_cast<float>(g.sum));
  return out;
}

}  // namespace

TEST(CheckLayer, LuminanceTilesRightWrongAndTheKernelsState) {
  const KernelSpec& spec = find_kernel("lum/subgroup_add_256");
  const Problem p = make_luminance_problem(InputKind::Random, 333, 77, 5);
  const RunShape shape = tiled_shape(spec, p);
  const auto check = make_answer_check(spec, p, shape);
  auto words = right_tile_sums(spec, p, shape);
  EXPECT_EQ(check->check(readback_of(words)).status, CheckStatus::Pass);

  auto wrong = words;
  wrong[shape.groups_x + 1] *= 1.01f;  // tile (1,1) one percent off
  const CheckResult o = check->check(readback_of(wrong));
  EXPECT_EQ(o.status, CheckStatus::Fail);
  EXPECT_NE(o.first_failure.find("tile 1,1"), std::string::npos) << o.first_failure;

  Readback past_end = readback_of(words);
  const float stray = 1.0f;
  std::memcpy(past_end.bytes.data() + past_end.output_bytes + 8, &stray, 4);
  const CheckResult guard = check->check(past_end);
  EXPECT_EQ(guard.status, CheckStatus::Fail);
  EXPECT_NE(guard.message.find("guard byte 8"), std::string::npos) << guard.message;

  // A NaN where a sum belongs (the poison left in place: the kernel never wrote that tile).
  auto unwritten = words;
  std::memcpy(&unwritten.back(), &kNaNBits, 4);
  EXPECT_EQ(check->check(readback_of(unwritten)).status, CheckStatus::Fail);
}

TEST(CheckLayer, SinglePassCounterMustBeBackAtZero) {
  const KernelSpec& spec = find_kernel("lum/single_pass_atomic");
  const Problem p = make_luminance_problem(InputKind::Random, 64, 64, 2);
  const RunShape shape = tiled_shape(spec, p);
  const auto check = make_answer_check(spec, p, shape);
  auto words = right_tile_sums(spec, p, shape);
  double total = 0;
  for (const auto& g : expected_luminance(spec, p, shape)) total += g.sum;
  words.push_back(static_cast<float>(total));
  Readback r = readback_of(words);
  r.counter = 0;
  EXPECT_EQ(check->check(r).status, CheckStatus::Pass);
  r.counter = static_cast<uint32_t>(shape.groups());  // never reset by the kernel
  const CheckResult o = check->check(r);
  EXPECT_EQ(o.status, CheckStatus::Fail);
  EXPECT_NE(o.message.find("atomic counter"), std::string::npos) << o.message;
}

TEST(CheckLayer, BoidsSerialSumOneSkippedPositionIsImprobable) {
  const KernelSpec& spec = find_kernel("boids/single_invocation");
  const Problem p = make_boids_problem(InputKind::Random, 4099, 3);
  const auto check = make_answer_check(spec, p, single_group_shape(p));
  // The kernel's own order: one float sum per axis, position by position.
  auto serial = [&](int skip) {
    float s[3] = {0, 0, 0};
    for (uint64_t i = 0; i < p.count; ++i)
      for (int c = 0; c < 3; ++c)
        if (static_cast<int>(i) != skip) s[c] += p.data[i * 4 + c];
    return std::vector<float>{s[0], s[1], s[2], 0.0f};
  };
  const CheckResult right = check->check(readback_of(serial(-1)));
  EXPECT_EQ(right.status, CheckStatus::Pass);
  EXPECT_LT(right.probable_ratio, 0.5);
  // Position 3000 left out: within the worst case bound (gamma_4098 sum|x|), beyond the probabilistic one,
  // unless all three of its components are small.
  const auto& x = p.data;
  ASSERT_GT(std::fabs(x[3000 * 4]) + std::fabs(x[3000 * 4 + 1]) + std::fabs(x[3000 * 4 + 2]), 100.0f);
  const CheckResult skipped = check->check(readback_of(serial(3000)));
  EXPECT_EQ(skipped.status, CheckStatus::Improbable) << skipped.message;
  EXPECT_LT(skipped.worst_ratio, 1.0) << "the worst case cannot see it";
  EXPECT_GT(skipped.probable_ratio, 1.0);
  // With a write past the end as well: a failure, and both diagnoses kept.
  Readback both = readback_of(serial(3000));
  const float stray = 2.0f;
  std::memcpy(both.bytes.data() + both.output_bytes, &stray, 4);
  const CheckResult o = check->check(both);
  EXPECT_EQ(o.status, CheckStatus::Fail);
  EXPECT_NE(o.message.find("probabilistic one"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("wrote past the end"), std::string::npos) << o.message;
}

TEST(CheckLayer, BoidsMinMaxIsExact) {
  const KernelSpec& spec = find_kernel("boids/minmax_subgroup");
  const Problem p = make_boids_problem(InputKind::Negative, 64, 9);
  const auto check = make_answer_check(spec, p, single_group_shape(p));
  const auto ref = reference::boids_stats(p.data, p.count);
  std::vector<float> words{static_cast<float>(ref.min[0]), static_cast<float>(ref.min[1]), static_cast<float>(ref.min[2]), 0,
                           static_cast<float>(ref.max[0]), static_cast<float>(ref.max[1]), static_cast<float>(ref.max[2]), 0};
  EXPECT_EQ(check->check(readback_of(words)).status, CheckStatus::Pass);
  words[4] = std::nextafter(words[4], 0.0f);  // max x one ulp off
  EXPECT_EQ(check->check(readback_of(words)).status, CheckStatus::Fail);
}

TEST(CheckLayer, PostfxImageRightAndOnePixelWrong) {
  const KernelSpec& spec = find_kernel("postfx/rgb_to_yxy");
  const Problem p = make_postfx_problem(InputKind::HdrTest, 40, 24, 1);
  DerivedInput input{std::make_shared<const std::vector<float>>(postfx_input(spec, p)), postfx_params(p)};
  const ExpectedImage expected = expected_pixel_map(spec, p.width, p.height, *input.data, params_of(input));
  RunShape shape;
  shape.groups_x = 3;
  shape.groups_y = 2;
  const auto check = make_answer_check(spec, p, shape, std::move(input));
  std::vector<float> words(expected.value.begin(), expected.value.end());
  EXPECT_EQ(check->check(readback_of(words)).status, CheckStatus::Pass);
  words[(5 * p.width + 7) * 4 + 1] += 0.25f;  // pixel (7,5), channel 1
  const CheckResult o = check->check(readback_of(words));
  EXPECT_EQ(o.status, CheckStatus::Fail);
  EXPECT_NE(o.first_failure.find("(7,5)"), std::string::npos) << o.first_failure;
}

// The registry: every family once, in Family's order (the --check suite's case seeds follow it), each with
// every part, and each catalog entry named under its family's prefix, its method in its family's table.
TEST(KernelFamilies, EachFamilyOnceInOrderWithEveryPartAndItsKernelsNames) {
  std::set<Family> seen;
  for (const KernelFamily* f : kernel_families()) {
    EXPECT_TRUE(seen.empty() || *seen.rbegin() < f->id) << f->name;
    EXPECT_TRUE(seen.insert(f->id).second) << f->name;
    EXPECT_EQ(&kernel_family(f->id), f);
    EXPECT_FALSE(f->name.empty() || f->display_name.empty());
    EXPECT_TRUE(f->make_problem && f->method && f->check_inputs) << f->name;
    EXPECT_FALSE(f->check_inputs().empty()) << f->name;
    // A problem's size kind (how its items and size text are read) is its family's.
    const SizeSpec size = f->size == SizeKind::Count ? SizeSpec{0, 0, 64} : SizeSpec{8, 4, 0};
    const Problem p = f->make_problem(f->benchmark_input, size, 1);
    EXPECT_EQ(p.size_kind, f->size) << f->name;
    EXPECT_EQ(p.items(), size.items()) << f->name;
    EXPECT_EQ(p.size_string(), size_text(f->size, size)) << f->name;
  }
  for (const KernelSpec& spec : catalog()) {
    EXPECT_TRUE(spec.name.starts_with(std::string(kernel_family(spec.family).name) + "/")) << spec.name;
    EXPECT_NO_THROW(kernel_method(spec)) << spec.name << ": its method is not in its family's table";
  }
}
