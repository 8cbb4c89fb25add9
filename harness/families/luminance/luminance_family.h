#pragma once
// What the luminance family's files share: its runner and its check (luminance_family.cpp joins them up).
#include <memory>
#include <vector>

#include "check/answer_check.h"
#include "luminance.h"
#include "run/family_runner.h"

namespace shaderwatch {

std::unique_ptr<FamilyRunner> make_luminance_runner(RunContext& context);

// The reference of each output element over exactly the pixels the kernel assigns to it.
std::vector<reference::LuminanceGroup> expected_luminance(const KernelSpec& spec, const Problem& problem,
                                                          const RunShape& shape);
CheckResult check_luminance(const KernelSpec& spec, const RunShape& shape, const std::vector<reference::LuminanceGroup>& expected,
                        const Readback& got);

}  // namespace shaderwatch
