#include "suite/benchmark_result.h"

namespace shaderwatch {

contract::RowStatus row_status(CheckStatus status) {
  using contract::RowStatus;
  switch (status) {
    case CheckStatus::Pass: return RowStatus::Pass;
    case CheckStatus::Flake: return RowStatus::Flake;
    case CheckStatus::ExpectedFail: return RowStatus::Xfail;
    case CheckStatus::UnexpectedPass: return RowStatus::Xpass;
    case CheckStatus::Skipped: return RowStatus::Skip;
    case CheckStatus::Unsupported: return RowStatus::Unsupported;
    case CheckStatus::Fail:
    case CheckStatus::Improbable:
    case CheckStatus::Error: return RowStatus::Fail;
  }
  return RowStatus::Fail;
}

std::string row_error_message(const CheckResult& outcome, uint64_t seed) {
  const std::string first_wrong = outcome.first_failure.empty() ? "" : "; first wrong: " + outcome.first_failure;
  switch (row_status(outcome.status)) {
    case contract::RowStatus::Pass:
    case contract::RowStatus::Flake: return "";
    case contract::RowStatus::Xfail:
      return contract::expected_outcome_message(outcome.expectation, contract::kXfail, outcome.message + first_wrong);
    case contract::RowStatus::Xpass: return contract::expected_outcome_message(outcome.expectation, contract::kXpass, outcome.message);
    case contract::RowStatus::Skip: return contract::expected_outcome_message(outcome.expectation, contract::kSkip, outcome.message);
    case contract::RowStatus::Unsupported: return std::string(contract::kUnsupportedPrefix) + outcome.message;
    case contract::RowStatus::Fail: break;
  }
  return status_name(outcome.status) + ": " + outcome.message + first_wrong + " (seed " + std::to_string(seed) + ")";
}

}  // namespace shaderwatch
