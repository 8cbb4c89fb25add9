#pragma once
// What the post-processing family's files share beyond postfx_check.h: its runner (postfx_family.cpp joins
// them up).
#include <memory>

#include "run/family_runner.h"

namespace shaderwatch {

std::unique_ptr<FamilyRunner> make_postfx_runner(RunContext& context);

}  // namespace shaderwatch
