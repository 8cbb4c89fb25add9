#pragma once
// Reporting, apart from measuring: a benchmark's measurement and check become Google Benchmark
// repetitions, counters and a label; reporters write them under their clean names.
#include <benchmark/benchmark.h>
#include <shaderwatch/result_contract.h>

#include <memory>
#include <string>
#include <vector>

#include "suite/benchmark_result.h"

namespace shaderwatch {

// Each benchmark is reported as this many Google Benchmark repetitions: its samples in time order cut
// into as many chunks, one repetition per chunk (fewer with fewer samples). U tests (the server's,
// compare.py's) then have a distribution to work on.
inline constexpr size_t kReportedRepetitions = 10;

// The time of each reported repetition: chunk medians; chunk means where the samples form several
// groups, so the reported level moves with the groups' shares instead of jumping to the larger group.
std::vector<double> repetition_seconds(const Measurement& m);

// "spirv:... stop:..." plus, where they apply, the groups with share and level, and "precision not reached".
std::string result_label(const BenchmarkResult& r);

// Sets repetition `index` of `r` on `state`: its time, counters, label, or the error.
void report_repetition(benchmark::State& state, const BenchmarkResult& r, size_t index);

// A reporter that writes through `inner` with every run named by its clean name: Google Benchmark's
// "/iterations:1", "/repeats:N" and "/manual_time" decoration removed; counters that are not finite
// (a cv over zeros) left out, so the JSON stays JSON.
class CleanNameReporter : public benchmark::BenchmarkReporter {
 public:
  // aggregates_only: pass on only the aggregate rows (mean, median, stddev, cv) of repeated benchmarks,
  // as the console shows them; machine-readable output gets every repetition. all_at_the_end: hold every run
  // and pass them on at once when the report ends (CSV: Google Benchmark's CSV reporter takes its columns from
  // the first runs it is given and aborts on a counter that comes later, such as a second group's time).
  CleanNameReporter(benchmark::BenchmarkReporter* inner, std::unique_ptr<benchmark::BenchmarkReporter> owned = nullptr,
                    bool aggregates_only = false, bool all_at_the_end = false);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  benchmark::BenchmarkReporter* inner_;
  std::unique_ptr<benchmark::BenchmarkReporter> owned_;
  bool aggregates_only_;
  bool all_at_the_end_;
  std::vector<Run> held_;
};

// The file reporter for --benchmark_out_format (json, the default; csv; console), clean names.
// Throws std::invalid_argument for another format.
std::unique_ptr<CleanNameReporter> make_file_reporter(const std::string& format);

// What report_benchmarks gives: the unexpected correctness failures (wrong answers or errors, not the negative
// control's expected outcome), and --benchmark_out's content in `out_format` as Google Benchmark's reporter wrote
// it, held in memory (the bench writes each document once, after adding what is its own: result_documents.h).
struct ReportedBenchmarks {
  int unexpected_failures = 0;
  std::string out_text;  // empty without an out_format
};
// Reports the results through Google Benchmark: --benchmark_format's display on stdout when `display` (else
// nothing there: the terminal report shows them), and --benchmark_out's content in `out_format` when one is given
// (else ""). Google Benchmark itself never opens --benchmark_out (main takes the flag away from it).
ReportedBenchmarks report_benchmarks(const std::vector<BenchmarkResult>& results, const std::string& out_format,
                                     bool display);

// Throws std::runtime_error naming --benchmark_out's file and the system's reason when it cannot be
// written (a missing directory, no permission), so the mistake shows before the GPU work, not after it.
// A file that did not exist is not left behind.
void check_output_file_writable(const std::string& path);

}  // namespace shaderwatch
