// The verdict's explanations (verdict_answer.h's Explanation): for each benchmark it names, before -> after,
// against what, the threshold, what changed at that run (read from the store), and the next steps. Built once
// here; summary.md, junit.xml, results.csv, the run page and the bench's line after --post all render these.
#pragma once

#include <string>
#include <vector>

#include "queries/verdict_answer.h"
#include "detection/verdict_evidence.h"
#include "storage/sql.h"

namespace shaderwatch {

// Every entry of the verdict's lists explained, failing ones first.
std::vector<Explanation> explain_verdict(sql::Conn& c, const JudgedRun& run, const Verdict& v);

// Where to look and what to run next, with the dashboard (and its server) at `base`: the benchmark's chart, this
// run against its baseline, the alert, the bench command that measures the benchmark alone, and ci/bisect.py from
// this run (empty where there is no commit range to bisect).
struct NextStep {
  std::string series_url, compare_url, alert_url, reproduce, bisect;
};
NextStep next_step(const Explanation& e, const std::string& run_id, const std::string& base);

// The bench command that measures these benchmarks (family/variant/size/mode) alone: their kernels at their sizes.
std::string reproduce_command(const std::vector<std::string>& benchmarks);

}  // namespace shaderwatch
