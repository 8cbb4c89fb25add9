#pragma once
// What the boids family's files share: its runner and its check (boids_family.cpp joins them up).
#include <memory>

#include "check/answer_check.h"
#include "run/family_runner.h"

namespace shaderwatch {

std::unique_ptr<FamilyRunner> make_boids_runner(RunContext& context);

// Sums of the positions (against their bounds), or exact min and max.
CheckResult check_boids(const KernelSpec& spec, const Problem& problem, const RunShape& shape, const Readback& got);

}  // namespace shaderwatch
