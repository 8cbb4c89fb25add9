// Google Benchmark's aggregate statistics (mean, median, stddev, cv), computed from a benchmark's repetitions as
// its src/statistics.cc (1.7) computes them: where a posted aggregate row's number is this, bit for bit, a pack
// keeps it as one byte (stored_rows.cpp) and computes it again when read. Stored packs are read with these
// forever, so they must not change; their file is compiled without contraction (-ffp-contract=off), so every
// build rounds each step alike on the CPUs the server is built for (x86-64 and aarch64: doubles in SSE or NEON
// registers, never x87's wider ones).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace shaderwatch {

// The aggregate named (as Google Benchmark names them) of `sample`, in posting order; none for another name or
// an empty sample.
std::optional<double> gbench_statistic(std::string_view aggregate_name, const std::vector<double>& sample);

}  // namespace shaderwatch
