#include "check.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace shaderwatch {

std::string status_name(Status status) {
  switch (status) {
    case Status::Pass: return "PASS";
    case Status::Fail: return "FAIL";
    case Status::ExpectedFail: return "XFAIL";
    case Status::UnexpectedPass: return "XPASS";
    case Status::Flake: return "FLAKE";
    case Status::Skipped: return "SKIP";
    case Status::Unsupported: return "UNSUPPORTED";
    case Status::Error: return "ERROR";
  }
  return "?";
}

bool is_unexpected_failure(Status status) { return status == Status::Fail || status == Status::Error; }

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
  outcome_.elements_checked += later.outcome_.elements_checked;
  if (std::isnan(later.outcome_.worst_ratio) || later.outcome_.worst_ratio > outcome_.worst_ratio) {
    outcome_.worst_ratio = later.outcome_.worst_ratio;
  }
}

Outcome ElementChecker::outcome() const {
  Outcome o = outcome_;
  o.status = failures_ ? Status::Fail : Status::Pass;
  if (failures_) o.message = std::to_string(failures_) + " of " + std::to_string(o.elements_checked) + " elements wrong";
  return o;
}

}  // namespace shaderwatch
