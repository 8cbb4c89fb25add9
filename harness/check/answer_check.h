#pragma once
// The checks as pure functions from (spec, problem, run shape, readback) to an outcome: no Vulkan, so tests
// drive them with readbacks built by hand (tests/check_test.cpp). One per method (families/<family>/, made by
// its KernelMethod's make_check), and AnswerCheck, which holds the run's method check (made once, by the layer
// above that knows the methods), so that the reference it computes at the first check serves later checks of
// the same run.
#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "catalog.h"
#include "check/check.h"
#include "check/shared_references.h"
#include "inputs/inputs.h"
#include "check/readback.h"

namespace shaderwatch {

// What a check needs of a run beyond its spec and input: the main dispatch's shape.
struct RunShape {
  uint32_t groups_x = 1, groups_y = 1;  // workgroups (tiles, for the tiled kernels) in x and y
  ErrorContext error_context{};          // the device's subgroup size, the items, the workgroups
  uint64_t groups() const { return uint64_t{groups_x} * groups_y; }
};

// What a family derives from a problem for its kernels where they do not read the problem's data as is
// (post-processing: the image in the kernel's pixel space, and the parameters that come from it): uploaded in
// place of the data, and handed to the runner and the check. Shared, not copied: every kernel reading the same
// derived input checks against one copy (8K: 530 MB).
struct DerivedInput {
  std::shared_ptr<const std::vector<float>> data;  // uploaded instead of the problem's data; nullptr: the data as is
  std::any parameters;  // the family's own (post-processing: reference::PostfxParams), read by its checks
  // What its kernels read as push constants where their plan says PushWord::Parameters (kernels/dispatch_plan.h).
  std::vector<float> push_parameters;
  // References its kernels' checks share (the benchmark suite's); nullptr: each check makes its own.
  std::shared_ptr<SharedReferences> references;
};

// A method's check of one run's readback (its KernelMethod::make_check, families/kernel_method.h). Made once per
// run and called under AnswerCheck's lock, so it may keep what its first call computes (the reference) for the
// later ones: the benchmark checks hot and cold runs.
using MethodCheck = std::function<CheckResult(const Readback& got)>;

class AnswerCheck {
 public:
  // `method_check`: the run's method's (families/kernel_family.h's make_answer_check makes both).
  AnswerCheck(MethodCheck method_check, RunShape shape);
  // The answer, then the kernel's state (check_kernel_state). Safe from several threads at once.
  CheckResult check(const Readback& got) const;
  const RunShape& shape() const { return shape_; }

 private:
  RunShape shape_;
  // Mutable: it keeps the reference its first call computes.
  mutable MethodCheck method_check_;
  mutable std::mutex mutex_;
};

}  // namespace shaderwatch
