#pragma once
// What shaderwatch-bench writes and shaderwatch-server reads beyond plain Google Benchmark JSON: spelled
// once, here, for both.
#include <string_view>

namespace shaderwatch::contract {

// The kinds of row. Error rows say their kind with the start of their error message.
enum class RowKind {
  measured,             // a time: a point of its series
  correctness_failure,  // any other error: a wrong answer or a failed run; fails the verdict
  expected_outcome,     // the negative control's XFAIL/XPASS: kept, never a failure, never a point
  unsupported,          // the device cannot run the kernel: kept, never a failure, never a point;
                        // the verdict lists it as skipped
};
inline constexpr std::string_view kExpectedOutcomePrefix = "EXPECTED (negative control): ";
inline constexpr std::string_view kUnsupportedPrefix = "UNSUPPORTED: ";

inline RowKind row_kind(bool error_occurred, std::string_view error_message) {
  if (!error_occurred) return RowKind::measured;
  if (error_message.starts_with(kExpectedOutcomePrefix)) return RowKind::expected_outcome;
  if (error_message.starts_with(kUnsupportedPrefix)) return RowKind::unsupported;
  return RowKind::correctness_failure;
}

// Per-benchmark counters on every repetition row: the quartiles of all the run's samples. The server
// reads their spread as the benchmark's own noise (compare's noise floor).
inline constexpr const char* kMedianCounter = "median_us";
inline constexpr const char* kP25Counter = "p25_us";
inline constexpr const char* kP75Counter = "p75_us";

}  // namespace shaderwatch::contract
