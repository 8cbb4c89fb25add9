// A run's report for CI systems: JUnit XML, a markdown summary for a PR comment or a job summary, and a
// CSV of the benchmarks. Pure functions over the API's own answers (Queries::run, Queries::verdict and the
// improvements the run raised), so every client (the runner script, a bot, a person with curl) gets the
// same text and the rendering is tested without a database.
#pragma once

#include <cstddef>
#include <string>

#include <vector>

#include "queries/alert_answer.h"
#include "queries/run_answer.h"
#include "queries/verdict_answer.h"

namespace shaderwatch::report {

struct RunReportInput {
  RunDetail run;                   // Queries::run(id)
  Verdict verdict;                 // Queries::verdict(id)
  std::vector<Alert> improvements;  // improvement alerts this run raised
  std::string dashboard;        // base URL of the dashboard (links), e.g. http://results:8080
};

// One <testsuite> (GPU and driver) with one <testcase> per benchmark: classname family/variant, name the
// rest (size/mode[/devN]), time the median in seconds. Correctness failures and regressions the verdict
// fails on are <failure> (the text in the element body); unsupported kernels <skipped>; expected
// failures, unexpected passes of the negative control, acknowledged regressions and suspects pass with
// a <system-out> line saying so.
std::string junit_xml(const RunReportInput& in);

// The verdict line, then tables of regressions, correctness failures and suspects; improvements and
// skipped kernels folded in <details>. Starts with a hidden marker naming the run, so a bot can update
// its PR comment in place. Cut, with a link to the full run on the dashboard, past max_bytes.
inline constexpr std::size_t kSummaryMaxBytes = 60000;
std::string summary_markdown(const RunReportInput& in, std::size_t max_bytes = kSummaryMaxBytes);

// name,status,median_us,err_bound_ratio,label: one row per benchmark, RFC 4180 quoting. status is
// REGRESSION for a regression the verdict fails on, else the outcome (PASS, FAIL, XFAIL, XPASS,
// UNSUPPORTED).
std::string results_csv(const RunReportInput& in);

// The marker summary_markdown starts with: <!-- shaderwatch-run: ID -->
std::string summary_marker(const std::string& run_id);

}  // namespace shaderwatch::report
