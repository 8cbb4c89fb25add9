#include "report/benchmark_report.h"

#include <shaderwatch/result_contract.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace shaderwatch {

std::vector<double> repetition_seconds(const Measurement& m) {
  return m.stats.multi_group() ? chunk_means(m.seconds, kReportedRepetitions)
                               : chunk_medians(m.seconds, kReportedRepetitions);
}

std::string result_label(const BenchmarkResult& r) {
  std::string label = std::string(contract::kSpirvLabelPrefix) + r.spirv_hash + " stop:" + stop_reason_name(r.measurement.stop);
  const auto& groups = r.measurement.stats.groups;
  if (groups.size() > 1) {
    label += " groups:" + std::to_string(groups.size());
    for (const auto& g : groups) {
      char text[64];
      std::snprintf(text, sizeof text, " %.1fus*%.0f%%", g.median * 1e6, g.share * 100);
      label += text;
    }
  }
  if (!reached_precision(r.measurement.stop)) label += " precision-not-reached";
  return label;
}

void report_repetition(benchmark::State& state, const BenchmarkResult& r, size_t index) {
  if (!r.error_message.empty()) {
    state.SkipWithError(r.error_message.c_str());
    return;
  }
  const auto times = repetition_seconds(r.measurement);
  for (auto _ : state) state.SetIterationTime(times.at(index));
  const SampleStats& s = r.measurement.stats;
  state.SetLabel(result_label(r));
  state.SetBytesProcessed(static_cast<int64_t>(r.traffic.bytes_read + r.traffic.bytes_written));
  state.SetItemsProcessed(static_cast<int64_t>(r.items));
  state.counters[contract::kMedianCounter] = s.median * 1e6;
  state.counters["min_us"] = s.min * 1e6;
  state.counters[contract::kP25Counter] = s.p25 * 1e6;
  state.counters[contract::kP75Counter] = s.p75 * 1e6;
  state.counters["rel_stdev_pct"] = s.rel_stdev * 100;
  state.counters["samples"] = static_cast<double>(s.count);
  state.counters["groups"] = static_cast<double>(s.groups.size());
  for (size_t g = 0; g < s.groups.size() && s.groups.size() > 1; ++g) {
    state.counters["group" + std::to_string(g + 1) + "_us"] = s.groups[g].median * 1e6;
    state.counters["group" + std::to_string(g + 1) + "_share_pct"] = s.groups[g].share * 100;
  }
  state.counters["precise"] = reached_precision(r.measurement.stop) ? 1 : 0;
  state.counters["idle_before_ms"] = r.measurement.idle_before_seconds * 1e3;  // beside the clocks: idle GPUs slow down
  if (const double pct = pct_of_roofline(r.traffic, r.bandwidths, s.median); pct > 0)
    state.counters[contract::kPctOfRooflineCounter] = pct;
  state.counters[contract::kErrBoundRatioCounter] = r.outcome.worst_ratio;
  if (r.outcome.probable_ratio > 0) state.counters[contract::kErrProbableRatioCounter] = r.outcome.probable_ratio;
  if (r.outcome.check_retries > 0) state.counters[contract::kCheckRetriesCounter] = r.outcome.check_retries;
  if (r.clocks && r.clocks->polls) {
    state.counters["sm_mhz_min"] = r.clocks->sm_mhz_min;
    state.counters["sm_mhz_max"] = r.clocks->sm_mhz_max;
    state.counters["mem_mhz_min"] = r.clocks->mem_mhz_min;
    state.counters["throttle_reasons"] = static_cast<double>(r.clocks->throttle_reasons);
    state.counters["power_w_max"] = r.clocks->power_mw_max / 1000.0;
    state.counters["temperature_c_max"] = r.clocks->temperature_c_max;
  }
}

CleanNameReporter::CleanNameReporter(benchmark::BenchmarkReporter* inner, std::unique_ptr<benchmark::BenchmarkReporter> owned,
                                     bool aggregates_only, bool all_at_the_end)
    : inner_(inner), owned_(std::move(owned)), aggregates_only_(aggregates_only), all_at_the_end_(all_at_the_end) {}

bool CleanNameReporter::ReportContext(const Context& context) {
  // Its streams are the inner one's: report_benchmarks points this reporter at a string in memory.
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  return inner_->ReportContext(context);
}

void CleanNameReporter::ReportRuns(const std::vector<Run>& runs) {
  std::vector<Run> clean = runs;
  if (aggregates_only_) {
    std::erase_if(clean, [](const Run& r) { return r.run_type != Run::RT_Aggregate && r.repetitions > 1; });
    if (clean.empty()) return;
  }
  for (Run& run : clean) {
    run.run_name.iterations.clear();
    run.run_name.repetitions.clear();
    run.run_name.time_type.clear();
    // The cv aggregate of a counter that is 0 in every repetition (an exact result's err_bound_ratio) is
    // 0/0: written as NaN, which is not JSON. Such a counter has no cv; it is left out of that row.
    std::erase_if(run.counters, [](const auto& c) { return !std::isfinite(c.second.value); });
  }
  if (all_at_the_end_) {
    held_.insert(held_.end(), clean.begin(), clean.end());
    return;
  }
  inner_->ReportRuns(clean);
}

void CleanNameReporter::Finalize() {
  if (!held_.empty()) inner_->ReportRuns(held_);
  held_.clear();
  inner_->Finalize();
}

std::unique_ptr<CleanNameReporter> make_file_reporter(const std::string& format) {
  std::unique_ptr<benchmark::BenchmarkReporter> inner;
  if (format.empty() || format == "json") {
    inner = std::make_unique<benchmark::JSONReporter>();
  } else if (format == "console") {
    inner = std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
  } else if (format == "csv") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    inner = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  } else {
    throw std::invalid_argument("--benchmark_out_format: '" + format + "' is not json, csv or console");
  }
  auto* raw = inner.get();
  return std::make_unique<CleanNameReporter>(raw, std::move(inner), false, format == "csv");
}

void check_output_file_writable(const std::string& path) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f)
    throw std::runtime_error("--benchmark_out '" + path + "' cannot be written: " + std::strerror(errno));
  std::fclose(f);
  if (!existed) std::filesystem::remove(path, ec);
}

namespace {

// Google Benchmark needs a display reporter; when the terminal report is shown instead, this one.
class NullReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

// Google Benchmark takes one display reporter (a file reporter only with its --benchmark_out, which the bench
// keeps from it): this one hands every call to both the display and the in-memory file reporter.
class TeeReporter : public benchmark::BenchmarkReporter {
 public:
  TeeReporter(benchmark::BenchmarkReporter* shown, benchmark::BenchmarkReporter* kept) : shown_(shown), kept_(kept) {}
  bool ReportContext(const Context& context) override {
    const bool shown = shown_->ReportContext(context);
    return (!kept_ || kept_->ReportContext(context)) && shown;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    shown_->ReportRuns(runs);
    if (kept_) kept_->ReportRuns(runs);
  }
  void Finalize() override {
    shown_->Finalize();
    if (kept_) kept_->Finalize();
  }

 private:
  benchmark::BenchmarkReporter* shown_;
  benchmark::BenchmarkReporter* kept_;
};

}  // namespace

ReportedBenchmarks report_benchmarks(const std::vector<BenchmarkResult>& results, const std::string& out_format,
                                     bool display) {
  ReportedBenchmarks reported;
  for (const BenchmarkResult& r : results) {
    if (is_unexpected_failure(r.outcome.status)) ++reported.unexpected_failures;
    auto next = std::make_shared<size_t>(0);  // Google Benchmark calls the function once per repetition, in order
    auto* b = benchmark::RegisterBenchmark(r.name.c_str(), [&r, next](benchmark::State& state) {
                report_repetition(state, r, (*next)++);
              })
                  ->UseManualTime()
                  ->Iterations(1)  // one iteration per repetition: its time is that chunk's median
                  ->Unit(benchmark::kMicrosecond);
    const size_t repetitions = r.error_message.empty() ? repetition_seconds(r.measurement).size() : 1;
    if (repetitions > 1) b->Repetitions(static_cast<int>(repetitions));
  }
  // --benchmark_format picks the display reporter; on the console only the aggregates, one line each.
  // Without a display (the terminal report shows the results) a reporter that prints nothing.
  NullReporter null;
  benchmark::BenchmarkReporter* shown = display ? benchmark::CreateDefaultDisplayReporter() : &null;
  CleanNameReporter shown_clean(shown, nullptr, dynamic_cast<benchmark::ConsoleReporter*>(shown) != nullptr);
  std::ostringstream out_text;
  std::unique_ptr<CleanNameReporter> kept = out_format.empty() ? nullptr : make_file_reporter(out_format);
  if (kept) {
    kept->SetOutputStream(&out_text);
    kept->SetErrorStream(&out_text);
  }
  TeeReporter both(&shown_clean, kept.get());
  benchmark::RunSpecifiedBenchmarks(&both, nullptr, "all");
  benchmark::ClearRegisteredBenchmarks();
  reported.out_text = std::move(out_text).str();
  return reported;
}

}  // namespace shaderwatch
