#include "check/check.h"

#include "summation.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace shaderwatch {

std::string status_name(CheckStatus status) {
  switch (status) {
    case CheckStatus::Pass: return "PASS";
    case CheckStatus::Fail: return "FAIL";
    case CheckStatus::ExpectedFail: return "XFAIL";
    case CheckStatus::UnexpectedPass: return "XPASS";
    case CheckStatus::Flake: return "FLAKE";
    case CheckStatus::Skipped: return "SKIP";
    case CheckStatus::Unsupported: return "UNSUPPORTED";
    case CheckStatus::Error: return "ERROR";
    case CheckStatus::Improbable: return "IMPROBABLE";
  }
  return "?";
}

bool is_wrong_answer(CheckStatus status) { return status == CheckStatus::Fail || status == CheckStatus::Improbable; }

bool is_unexpected_failure(CheckStatus status) { return is_wrong_answer(status) || status == CheckStatus::Error; }

double ElementChecker::ratio(double expected, double got, double bound) {
  // A NaN or Inf result never passes, and neither does an element whose bound is not finite: the error
  // analysis cannot vouch for it.
  if (!std::isfinite(got) || !std::isfinite(bound)) return std::numeric_limits<double>::infinity();
  const double error = std::fabs(got - expected);
  return bound > 0 ? error / bound : (error == 0 ? 0.0 : std::numeric_limits<double>::infinity());
}

std::string ElementChecker::failure_text(const std::string& what, double expected, double got, double bound,
                                         double ratio) {
  std::ostringstream s;
  s.precision(9);
  s << what << ": expected " << expected << ", got " << got << ", error/bound " << ratio;
  if (!std::isfinite(bound)) s << " (no finite bound)";
  return s.str();
}

void ElementChecker::merge(const ElementChecker& later) {
  if (failures_ == 0 && later.failures_ > 0) outcome_.first_failure = later.outcome_.first_failure;
  failures_ += later.failures_;
  if (improbable_ == 0 && later.improbable_ > 0) first_improbable_ = later.first_improbable_;
  improbable_ += later.improbable_;
  if (std::isnan(later.outcome_.probable_ratio) || later.outcome_.probable_ratio > outcome_.probable_ratio)
    outcome_.probable_ratio = later.outcome_.probable_ratio;
  outcome_.elements_checked += later.outcome_.elements_checked;
  if (std::isnan(later.outcome_.worst_ratio) || later.outcome_.worst_ratio > outcome_.worst_ratio) {
    outcome_.worst_ratio = later.outcome_.worst_ratio;
  }
}

CheckResult ElementChecker::outcome() const {
  CheckResult o = outcome_;
  o.status = failures_ ? CheckStatus::Fail : CheckStatus::Pass;
  if (failures_) {
    o.message = std::to_string(failures_) + " of " + std::to_string(o.elements_checked) + " elements wrong";
  } else if (improbable_) {
    // Within the worst case, so no element is provably wrong; but rounding alone gets this far only with
    // probability 5e-18 per value: a lost or extra term is the likely cause.
    o.status = CheckStatus::Improbable;
    o.first_failure = first_improbable_;
    o.message = std::to_string(improbable_) + " of " + std::to_string(o.elements_checked) +
                " elements within the worst-case bound but beyond the probabilistic one (lambda " +
                std::to_string(static_cast<int>(reference::kProbableLambda)) + ")";
  }
  return o;
}

}  // namespace shaderwatch
