#pragma once
// The one executor of dispatch plans (kernels/dispatch_plan.h): it makes a plan's buffers on the device, its
// pipelines in pass order, and records its fills and passes with a full barrier between them. Every catalog
// method that is plain compute dispatches runs through it; KernelRun picks it for any kernel with a plan.
#include <memory>

#include "run/family_runner.h"

namespace shaderwatch {

// Throws std::logic_error for a plan that plan_error refuses (KernelRun checks the workgroups against the device).
std::unique_ptr<FamilyRunner> make_dispatch_runner(RunContext& context, const DispatchPlan& plan);

}  // namespace shaderwatch
