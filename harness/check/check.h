#pragma once
// CheckResult of running one kernel on one input, and the element-by-element comparison that produces it.
#include <cstdint>
#include <cmath>
#include <string>

namespace shaderwatch {

enum class CheckStatus {
  Pass,
  Fail,
  ExpectedFail,    // an expected-fail entry's kernel gave a wrong answer, as expected (XFAIL)
  UnexpectedPass,  // an expected-fail entry's kernel was right this time: reported, never counted as a pass (XPASS)
  Flake,           // a flaky entry's kernel failed its check, then passed a rerun: a pass, reported as flake
  Skipped,         // an entry says not to run the kernel on this device
  Unsupported,    // the device lacks a feature the kernel needs
  Error,          // a Vulkan or compile error
  Improbable,     // within the worst-case bound but beyond the probabilistic one: a lost value or a wrong term is
                  // far likelier than rounding (reference::probable_error_gamma); CI gates on it as on FAIL
};
std::string status_name(CheckStatus status);
bool is_wrong_answer(CheckStatus status);        // Fail or Improbable: what expectations entries may excuse
bool is_unexpected_failure(CheckStatus status);  // what makes --check and the tests red

struct CheckResult {
  CheckStatus status = CheckStatus::Pass;
  double worst_ratio = 0;          // max over checked elements of |gpu - ref| / bound (0 when exact)
  double probable_ratio = 0;       // max of |gpu - ref| / probabilistic bound, where a check has one (0: none)
  uint64_t elements_checked = 0;
  std::string first_failure;       // "element 17: expected ..., got ..., error/bound ..."
  std::string message;             // why: failure summary, unsupported feature, error text
  double result = 0;               // the headline answer (average luminance, mean x, ...), for display
  double rmse = -1;                // post-processing: root mean square error over every channel (-1: n/a)
  std::string expectation;         // the id of the expectations entry applied to it, if any
  int check_retries = 0;           // Flake: how many checks failed before one passed
};

// Compares elements as they are read back; remembers the first failure and the worst ratio.
// A NaN or Inf never passes; a bound of 0 means exact.
class ElementChecker {
 public:
  void check(const std::string& what, double expected, double got, double bound) {
    check_lazy(expected, got, bound, [&] { return what; });
  }
  // A sum with its probabilistic bound too (at most `bound` where tighter): beyond it, within `bound`, the
  // outcome is Improbable.
  void check(const std::string& what, double expected, double got, double bound, double probable_bound) {
    check(what, expected, got, bound);
    const double r = ratio(expected, got, probable_bound);
    if (!(r <= 1.0) && improbable_++ == 0) first_improbable_ = failure_text(what + " (probabilistic bound)", expected, got, probable_bound, r);
    if (std::isnan(r) || r > outcome_.probable_ratio) outcome_.probable_ratio = r;
  }
  // `describe` is called only for the first failure: per-pixel checks name nothing they need not.
  template <class Describe>
  void check_lazy(double expected, double got, double bound, Describe&& describe) {
    ++outcome_.elements_checked;
    const double r = ratio(expected, got, bound);
    if (!(r <= 1.0) && failures_++ == 0) outcome_.first_failure = failure_text(describe(), expected, got, bound, r);
    if (std::isnan(r) || r > outcome_.worst_ratio) outcome_.worst_ratio = r;
  }
  void merge(const ElementChecker& later);  // `later` covers elements after this one's
  bool failed() const { return failures_ > 0; }
  CheckResult outcome() const;

 private:
  static double ratio(double expected, double got, double bound);
  static std::string failure_text(const std::string& what, double expected, double got, double bound, double ratio);
  CheckResult outcome_;
  uint64_t failures_ = 0;
  uint64_t improbable_ = 0;
  std::string first_improbable_;
};

}  // namespace shaderwatch
