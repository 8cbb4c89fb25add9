#pragma once
// The checks as pure functions from (spec, problem, run shape, readback) to an outcome: no Vulkan, so tests
// drive them with readbacks built by hand (tests/check_test.cpp). One per family (luminance_check.cpp,
// boids_check.cpp, postfx_check.cpp), and AnswerCheck, which picks one and keeps the reference it computes at
// the first check for later checks of the same run.
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "catalog.h"
#include "check/check.h"
#include "run/inputs.h"
#include "luminance.h"
#include "postfx.h"
#include "families/postfx/postfx_check.h"
#include "vulkan/readback.h"

namespace shaderwatch {

// What a check needs of a run beyond its spec and input: the main dispatch's shape.
struct RunShape {
  uint32_t groups_x = 1, groups_y = 1;  // workgroups (tiles, for the tiled kernels) in x and y
  ErrorContext error_context{};          // the device's subgroup size, the items, the workgroups
  uint64_t groups() const { return uint64_t{groups_x} * groups_y; }
};

// Luminance: the reference of each output element over exactly the pixels the kernel assigns to it.
std::vector<reference::LuminanceGroup> expected_luminance(const KernelSpec& spec, const Problem& problem,
                                                          const RunShape& shape);
CheckResult check_luminance(const KernelSpec& spec, const RunShape& shape, const std::vector<reference::LuminanceGroup>& expected,
                        const Readback& got);
// Boids: sums of the positions (against their bounds), or exact min and max.
CheckResult check_boids(const KernelSpec& spec, const Problem& problem, const RunShape& shape, const Readback& got);

// The post-processing input as uploaded: the pixels in the kernel's space and the parameters.
struct PostfxInput {
  std::vector<float> pixels;
  reference::PostfxParams params;
};

class AnswerCheck {
 public:
  AnswerCheck(const KernelSpec& spec, const Problem& problem, RunShape shape, PostfxInput postfx = {});
  // The answer, then the kernel's state (check_kernel_state). Safe from several threads at once.
  CheckResult check(const Readback& got) const;
  const RunShape& shape() const { return shape_; }

 private:
  const KernelSpec& spec_;
  const Problem& problem_;
  RunShape shape_;
  PostfxInput postfx_;
  // Computed at the first check, reused by later ones (the benchmark checks hot and cold runs).
  mutable std::vector<reference::LuminanceGroup> expected_groups_;
  mutable ExpectedImage expected_image_;
  mutable std::mutex mutex_;
};

}  // namespace shaderwatch
