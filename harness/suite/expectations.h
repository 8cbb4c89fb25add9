#pragma once
// Expectations per GPU and driver (deqp-runner's baseline, flakes and skips in one file): an entry maps a
// device and driver pattern and a kernel pattern to expected-fail, flaky (rerun up to N times) or skip,
// with a reason. kernels/expectations.json is built in (the negative control is its first entry); a
// runner adds its own files with --expectations. The first entry that matches a kernel on a device wins.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "check/check.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

enum class Expect { Fail, Flaky, Skip };

struct Expectation {
  std::string id;             // short and unique: it names the entry in every row it accounts for
  std::string kernel;         // glob over catalog kernel names ("lum/unrolled_literal_256", "postfx/blur_*")
  std::string device = "*";   // glob over the device name ("NVIDIA H200*")
  std::string driver = "*";   // glob over "<driver name> <driver info>" ("NVIDIA 580.*", "llvmpipe *")
  uint64_t min_items = 0;     // only for problems of at least this many items (positions, pixels)
  Expect expect = Expect::Fail;
  int reruns = 0;             // flaky: checks rerun after a failure, 1 to kMaxReruns
  std::string reason;         // why: the bug, its tracker link
  std::string source;         // the file it came from, for messages
};

inline constexpr int kMaxReruns = 10;

// Shell-style glob ('*', '?', '[...]'), case-insensitive; '*' crosses '/'.
bool glob_match(const std::string& pattern, const std::string& text);
// What an entry's driver pattern is matched against: "<driver name> <driver info>".
std::string driver_text(const DeviceInfo& device);

class Expectations {
 public:
  // Parses {"expectations": [entry, ...]} and appends its entries. Throws std::invalid_argument naming
  // the source, the entry and what is wrong: unknown keys, a missing reason, a kernel pattern that
  // matches no catalog kernel, a duplicate id, reruns out of range.
  void add_json(std::string_view text, const std::string& source);
  void add_file(const std::string& path);
  const Expectation* find(const std::string& kernel, const DeviceInfo& device, uint64_t items) const;
  const std::vector<Expectation>& entries() const { return entries_; }

 private:
  std::vector<Expectation> entries_;
};

// kernels/expectations.json as built into the binary.
Expectations builtin_expectations();

// How a run's checks are judged: the expectations, and the kernels whose output --corrupt-output spoils.
struct CheckPolicy {
  Expectations expectations = builtin_expectations();
  std::string corrupt_output;  // glob over kernel names; "" for none
  unsigned repeat = 1;         // --check --repeat: runs of each case, all passing and bit-identical
  double gpu_timeout_s = 600;  // --gpu-timeout: a submission longer than this loses its device (a hang)
  bool race_delays = false;    // --check --race: kernels wait varying clock cycles before shared memory
  bool corrupts(const std::string& kernel) const { return !corrupt_output.empty() && glob_match(corrupt_output, kernel); }
};

// The outcome of a kernel once its entry (or none) is applied to its first check: expected-fail turns a
// wrong answer into XFAIL and a right one into XPASS; flaky reruns the check (`rerun`) after a failure
// until one passes (FLAKE, with the failed tries counted) or the reruns run out (the last failure
// stands, a real one). Errors and unsupported kernels pass through: an entry covers wrong answers.
CheckResult apply_expectation(const Expectation* entry, CheckResult first, const std::function<CheckResult()>& rerun);
// The outcome of a kernel an entry says to skip on this device.
CheckResult skipped_outcome(const Expectation& entry);

}  // namespace shaderwatch
