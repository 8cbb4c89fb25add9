#pragma once
// Outcome of running one kernel on one input, and the element-by-element comparison that produces it.
#include <cstdint>
#include <string>

namespace shaderwatch {

enum class Status {
  Pass,
  Fail,
  ExpectedFail,   // the negative control gave a wrong answer, as expected
  NoRaceSeen,     // the negative control happened to be right: reported, never counted as a pass
  Unsupported,    // the device lacks a feature the kernel needs
  Error,          // a Vulkan or compile error
};
std::string status_name(Status status);
bool is_unexpected_failure(Status status);  // what makes --check and the tests red

struct Outcome {
  Status status = Status::Pass;
  double worst_ratio = 0;          // max over checked elements of |gpu - ref| / bound (0 when exact)
  uint64_t elements_checked = 0;
  std::string first_failure;       // "element 17: expected ..., got ..., error/bound ..."
  std::string message;             // why: failure summary, unsupported feature, error text
  double result = 0;               // the headline answer (average luminance, mean x, ...), for display
};

// Compares elements as they are read back; remembers the first failure and the worst ratio.
// A NaN or Inf never passes; a bound of 0 means exact.
class ElementChecker {
 public:
  void check(const std::string& what, double expected, double got, double bound);
  bool failed() const { return failures_ > 0; }
  Outcome outcome() const;

 private:
  Outcome outcome_;
  uint64_t failures_ = 0;
};

}  // namespace shaderwatch
