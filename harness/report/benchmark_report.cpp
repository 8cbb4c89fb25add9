#include "report/benchmark_report.h"

#include <shaderwatch/result_contract.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <stdexcept>

namespace shaderwatch {

std::vector<double> repetition_seconds(const Measurement& m) {
  return m.stats.multi_group() ? chunk_means(m.seconds, kReportedRepetitions)
                               : chunk_medians(m.seconds, kReportedRepetitions);
}

contract::RowStatus row_status(CheckStatus status) {
  using contract::RowStatus;
  switch (status) {
    case CheckStatus::Pass: return RowStatus::Pass;
    case CheckStatus::Flake: return RowStatus::Flake;
    case CheckStatus::ExpectedFail: return RowStatus::Xfail;
    case CheckStatus::UnexpectedPass: return RowStatus::Xpass;
    case CheckStatus::Skipped: return RowStatus::Skip;
    case CheckStatus::Unsupported: return RowStatus::Unsupported;
    case CheckStatus::Fail:
    case CheckStatus::Improbable:
    case CheckStatus::Error: return RowStatus::Fail;
  }
  return RowStatus::Fail;
}

std::string row_error_message(const CheckResult& outcome, uint64_t seed) {
  const std::string first_wrong = outcome.first_failure.empty() ? "" : "; first wrong: " + outcome.first_failure;
  switch (row_status(outcome.status)) {
    case contract::RowStatus::Pass:
    case contract::RowStatus::Flake: return "";
    case contract::RowStatus::Xfail:
      return contract::expected_outcome_message(outcome.expectation, contract::kXfail, outcome.message + first_wrong);
    case contract::RowStatus::Xpass: return contract::expected_outcome_message(outcome.expectation, contract::kXpass, outcome.message);
    case contract::RowStatus::Skip: return contract::expected_outcome_message(outcome.expectation, contract::kSkip, outcome.message);
    case contract::RowStatus::Unsupported: return std::string(contract::kUnsupportedPrefix) + outcome.message;
    case contract::RowStatus::Fail: break;
  }
  return status_name(outcome.status) + ": " + outcome.message + first_wrong + " (seed " + std::to_string(seed) + ")";
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
                                     bool aggregates_only)
    : inner_(inner), owned_(std::move(owned)), aggregates_only_(aggregates_only) {}

bool CleanNameReporter::ReportContext(const Context& context) {
  // Google Benchmark points this reporter (not the inner one) at --benchmark_out's file.
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
  inner_->ReportRuns(clean);
}

void CleanNameReporter::Finalize() { inner_->Finalize(); }

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
  return std::make_unique<CleanNameReporter>(raw, std::move(inner));
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

}  // namespace shaderwatch
