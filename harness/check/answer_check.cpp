#include "check/answer_check.h"

#include "families/kernel_family.h"

namespace shaderwatch {

AnswerCheck::AnswerCheck(const KernelSpec& spec, const Problem& problem, RunShape shape, PostfxInput postfx)
    : shape_(shape), method_check_(kernel_method(spec).make_check(spec, problem, shape_, std::move(postfx))) {}

CheckResult AnswerCheck::check(const Readback& got) const {
  const std::lock_guard lock(mutex_);
  CheckResult o = method_check_(got);
  check_kernel_state(got, o);
  return o;
}

}  // namespace shaderwatch
