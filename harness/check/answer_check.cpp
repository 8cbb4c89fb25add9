#include "check/answer_check.h"

namespace shaderwatch {

AnswerCheck::AnswerCheck(MethodCheck method_check, RunShape shape)
    : shape_(shape), method_check_(std::move(method_check)) {}

CheckResult AnswerCheck::check(const Readback& got) const {
  const std::lock_guard lock(mutex_);
  CheckResult o = method_check_(got);
  check_kernel_state(got, o);
  return o;
}

}  // namespace shaderwatch
