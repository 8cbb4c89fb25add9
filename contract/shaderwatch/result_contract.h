#pragma once
// What shaderwatch-bench writes and shaderwatch-server reads beyond plain Google Benchmark JSON: spelled
// once, here, for both.

namespace shaderwatch::contract {

// An error message starting with this marks the negative control's expected outcome: kept as a raw
// row, never a correctness failure and never a point of a series.
inline constexpr const char* kExpectedOutcomePrefix = "EXPECTED (negative control): ";

// Per-benchmark counters on every repetition row: the quartiles of all the run's samples. The server
// reads their spread as the benchmark's own noise (compare's noise floor).
inline constexpr const char* kMedianCounter = "median_us";
inline constexpr const char* kP25Counter = "p25_us";
inline constexpr const char* kP75Counter = "p75_us";

}  // namespace shaderwatch::contract
