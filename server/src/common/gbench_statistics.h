// Google Benchmark's aggregate statistics (mean, median, stddev, cv), computed from a benchmark's repetitions as
// its src/statistics.cc (1.7) computes them: where a posted aggregate row's number is this, bit for bit, a pack
// keeps it as one byte (stored_rows.cpp) and computes it again when read. Stored packs are read with these
// forever, so they must not change; their file is compiled without contraction (-ffp-contract=off), so every
// build rounds each step alike on the CPUs the server is built for (x86-64 and aarch64: doubles in SSE or NEON
// registers, never x87's wider ones).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace shaderwatch {

// The aggregate named (as Google Benchmark names them) of `sample`, in posting order; none for another name or
// an empty sample.
std::optional<double> gbench_statistic(std::string_view aggregate_name, const std::vector<double>& sample);

// Google Benchmark computes a time aggregate from its repetitions' accumulated seconds, not from the times it
// reports (src/statistics.cc, ComputeStats; src/reporter.cc, GetAdjustedRealTime):
//   reported repetition = seconds * multiplier / iterations
//   reported aggregate  = statistic(seconds) * (repetitions / first repetition's iterations) * multiplier / repetitions
// (a cv, of unit "percentage", is the statistic itself). So where a harness times on a clock, a mean or stddev of its
// reported times often differs in the last bit from what it posted, and the one from the seconds does not.

// GetTimeUnitMultiplier: 1e9 for "ns", 1e6 "us", 1e3 "ms", 1 "s"; none for another unit.
std::optional<double> gbench_unit_multiplier(std::string_view time_unit);
// The seconds a repetition reported as `reported` was accumulated from: the first of the doubles nearest
// reported * iterations / multiplier (that quotient, then one, two and three away, below before above) that the
// report's formula gives back as `reported`; none where none does.
std::optional<double> gbench_seconds(double reported, double multiplier, std::int64_t iterations);
// The aggregate named of repetitions that accumulated `seconds`, as reported: `repetitions` and
// `first_iterations` as above, `multiplier` the aggregate's unit's, `percentage` for an aggregate of that unit.
std::optional<double> gbench_time_aggregate(std::string_view aggregate_name, const std::vector<double>& seconds,
                                            std::int64_t repetitions, std::int64_t first_iterations,
                                            double multiplier, bool percentage);

}  // namespace shaderwatch
