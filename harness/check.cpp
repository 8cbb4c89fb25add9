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
    case Status::NoRaceSeen: return "XPASS";
    case Status::Unsupported: return "UNSUPPORTED";
    case Status::Error: return "ERROR";
  }
  return "?";
}

bool is_unexpected_failure(Status status) { return status == Status::Fail || status == Status::Error; }

void ElementChecker::check(const std::string& what, double expected, double got, double bound) {
  ++outcome_.elements_checked;
  double ratio;
  if (!std::isfinite(got)) {
    ratio = std::numeric_limits<double>::infinity();
  } else {
    const double error = std::fabs(got - expected);
    ratio = bound > 0 ? error / bound : (error == 0 ? 0.0 : std::numeric_limits<double>::infinity());
  }
  if (!(ratio <= 1.0)) {
    if (failures_++ == 0) {
      std::ostringstream s;
      s.precision(9);
      s << what << ": expected " << expected << ", got " << got << ", error/bound "
        << (std::isfinite(got) ? ratio : std::numeric_limits<double>::infinity());
      outcome_.first_failure = s.str();
    }
  }
  if (std::isnan(ratio) || ratio > outcome_.worst_ratio) outcome_.worst_ratio = ratio;
}

Outcome ElementChecker::outcome() const {
  Outcome o = outcome_;
  o.status = failures_ ? Status::Fail : Status::Pass;
  if (failures_) o.message = std::to_string(failures_) + " of " + std::to_string(o.elements_checked) + " elements wrong";
  return o;
}

}  // namespace shaderwatch
