#pragma once
// The benchmark's report for a person at a terminal (the default console output): one line per
// benchmark, grouped by device, family and size, then a closing summary. Google Benchmark's own console
// table is one flag away (--gbench-console); JSON and CSV are Google Benchmark's, unchanged.
#include <iosfwd>
#include <string>
#include <vector>

#include "report/benchmark_report.h"
#include "suite/suite_timing.h"

namespace shaderwatch {

// What the closing summary says beyond the rows.
struct ReportFacts {
  std::vector<std::string> devices;  // "NVIDIA H200 (NVIDIA 580.159.04)", one per device measured
  double seconds = 0;                // the suite's wall time
  uint64_t seed = 0;
  const SuiteTiming* timing = nullptr;
  std::string saved;  // "results: out.json (json)", or what to add to keep them
  int exit_status = 0;
  std::string exit_meaning;
};

struct ReportStyle {
  bool color = false;  // ANSI colours: FAIL red, PASS green
  size_t width = 120;  // no line is wider (messages wrap)
};

// The rows: a header per device, family and size; per benchmark its variant, mode, median, spread
// (p25-p75 as % of the median), % of the memory roofline and check status. A reason shared by several
// rows (an expectations entry, the same error) is a numbered note printed once under the table.
void print_benchmark_table(std::ostream& out, const std::vector<BenchmarkResult>& results, const ReportStyle& style);

// Counts by check status, the fastest variant per family and size (of the family's operation with the
// most variants, hot), time by phase with the slowest benchmarks, where the results went, and the exit
// status's meaning, last.
void print_closing_summary(std::ostream& out, const std::vector<BenchmarkResult>& results, const ReportFacts& facts,
                           const ReportStyle& style);

// For output that is not the report (--benchmark_format json or csv, --gbench-console): each unexpected
// failure's name and message, one line each, then their count, for stderr.
void print_failures(std::ostream& out, const std::vector<BenchmarkResult>& results);

// "12.3 us", "1.234 ms": three or four significant digits in the unit that fits.
std::string duration_text(double seconds);

// Whether standard output is a terminal that takes colour (not when NO_COLOR is set).
bool stdout_wants_color();

}  // namespace shaderwatch
