#include "suite/check_suite.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <ostream>

#include "families/kernel_family.h"
#include "common/text_wrap.h"

namespace shaderwatch {

std::vector<CheckCase> default_check_cases(const DeviceInfo& device) {
  std::vector<CheckCase> cases;
  for (const KernelFamily* family : kernel_families()) {
    for (const CheckInput& input : family->check_inputs()) cases.push_back({family->id, input.kind, input.size, "", ""});
  }
  for (const KernelSpec& spec : catalog()) {
    for (const auto& [size, why] : kernel_method(spec).dispatch_check_sizes(spec, device))
      cases.push_back({spec.family, kernel_family(spec.family).benchmark_input, size, spec.name, why});
    // A pack kernel's own input file, at its size, besides its family's inputs.
    if (!spec.input_file.empty())
      cases.push_back({spec.family, InputKind::File, parse_size(kernel_family(spec.family).size, spec.sizes.at(0)), spec.name,
                       "its input file"});
  }
  return cases;
}

void print_dispatch_cases(std::ostream& out, const std::vector<CheckCase>& cases, const std::regex& filter) {
  bool any = false;
  for (const auto& c : cases) {
    if (c.kernel.empty() || c.kind == InputKind::File || !std::regex_search(c.kernel, filter)) continue;
    if (!any) out << "sizes from each kernel's dispatch on this device:\n";
    any = true;
    out << "  " << c.kernel << " " << size_text(kernel_family(c.family).size, c.size) << ": " << c.why << "\n";
  }
  if (any) out << "\n";
}

size_t CheckSummary::unexpected_failures() const {
  size_t n = 0;
  for (const auto& r : rows) n += is_unexpected_failure(r.outcome.status);
  return n;
}

CheckSummary run_check_suite(Device& device, ShaderCompiler& compiler, const std::regex& filter, uint64_t seed,
                             const std::vector<CheckCase>& cases, const CheckPolicy& policy,
                             const std::function<void(const CheckRow&)>& on_row) {
  CheckSummary summary;
  device.set_submit_timeout(policy.gpu_timeout_s);
  for (const auto& c : cases) {
    // Each case has its own seed derived from the run's, so one case reruns alone with the same data.
    const uint64_t case_seed = seed + summary.rows.size();
    const Problem problem = c.kind == InputKind::File ? kernel_problem(find_kernel(c.kernel), c.kind, c.size, case_seed)
                                                      : kernel_family(c.family).make_problem(c.kind, c.size, case_seed);
    for (const auto& spec : catalog()) {
      if (!std::regex_search(spec.name, filter) || !kernel_accepts(spec, problem)) continue;
      if (!c.kernel.empty() && spec.name != c.kernel) continue;
      const Expectation* entry = policy.expectations.find(spec.name, device.info(), problem.items());
      // A kernel using subgroup operations runs at every subgroup size the device can require, and where there
      // are several at the device's own choice too (0: what the benchmark runs).
      std::vector<uint32_t> sizes;
      if (spec.subgroup_ops) sizes = device.info().requirable_subgroup_sizes(spec.group_x * spec.group_y);
      if (sizes.size() != 1) sizes.insert(sizes.begin(), 0);
      for (const uint32_t subgroup_size : sizes) {
      const auto run = [&] {
        return run_and_check(device, compiler, spec, problem, policy.corrupts(spec.name), policy.repeat, subgroup_size);
      };
      const std::string input = input_kind_name(c.kind) + (subgroup_size ? "/sg" + std::to_string(subgroup_size) : "");
      CheckRow row{spec.name, device.info().name, problem.size_string(), input, case_seed, {}};
      if (entry && entry->expect == Expect::Skip) {
        row.outcome = skipped_outcome(*entry);
      } else if (!device.lost().empty()) {  // a lost or hung device runs nothing more; the caller goes on to the next
        row.outcome.status = CheckStatus::Error;
        row.outcome.message = "not run: " + device.info().name + " was lost earlier: " + device.lost();
      } else {
        row.outcome = apply_expectation(entry, run(), run);
      }
      if (on_row) on_row(row);
      summary.rows.push_back(std::move(row));
      }
    }
  }
  return summary;
}

namespace {
std::string ratio_text(const CheckResult& o, double ratio) {
  if (o.status == CheckStatus::Unsupported || o.status == CheckStatus::Error || o.status == CheckStatus::Skipped) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", ratio);
  return buf;
}
}  // namespace

// Rows fit 120 columns: the device is named once, above the table.
void print_check_header(std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "%-32s %-10s %-14s %-11s %10s %9s  %s\n", "kernel", "size", "input", "status",
                "err/bound", "err/prob", "result");
  out << line;
}

void print_check_row(std::ostream& out, const CheckRow& row) {
  char line[512];
  char result[64] = "";
  if (row.outcome.rmse >= 0 && row.outcome.status == CheckStatus::Pass) {
    std::snprintf(result, sizeof result, "rmse %.3g", row.outcome.rmse);
  } else if (row.outcome.status == CheckStatus::Pass || row.outcome.status == CheckStatus::UnexpectedPass ||
             row.outcome.status == CheckStatus::Flake) {
    std::snprintf(result, sizeof result, "%.9g", row.outcome.result);
  }
  // err/prob: against the probabilistic bound, for the checks that have one (float sums); "-" elsewhere.
  const std::string probable = row.outcome.probable_ratio > 0 ? ratio_text(row.outcome, row.outcome.probable_ratio) : "-";
  std::snprintf(line, sizeof line, "%-32.32s %-10.10s %-14.14s %-11s %10s %9s  %.20s\n", row.kernel.c_str(), row.size.c_str(),
                row.input.c_str(), status_name(row.outcome.status).c_str(),
                ratio_text(row.outcome, row.outcome.worst_ratio).c_str(), probable.c_str(), result);
  out << line << std::flush;
}

void print_check_footer(std::ostream& out, const CheckSummary& summary) {
  constexpr size_t kWidth = 120;
  auto print = [&](const std::string& text, const char* indent) {
    for (const auto& line : wrap_words(text, kWidth - std::strlen(indent))) out << indent << line << "\n";
  };
  std::map<CheckStatus, size_t> counts;
  // An expectations entry's outcome is printed once for all its runs: its reason is the entry's.
  std::vector<std::pair<std::string, std::vector<const CheckRow*>>> expected;
  for (const auto& r : summary.rows) {
    ++counts[r.outcome.status];
    if (r.outcome.status == CheckStatus::Pass) continue;
    if (!r.outcome.expectation.empty() && !is_unexpected_failure(r.outcome.status)) {
      const std::string key = status_name(r.outcome.status) + ", expectation '" + r.outcome.expectation + "'";
      auto it = std::find_if(expected.begin(), expected.end(), [&](const auto& e) { return e.first == key; });
      if (it == expected.end()) it = expected.insert(expected.end(), {key, {}});
      it->second.push_back(&r);
      continue;
    }
    out << "\n";
    print(status_name(r.outcome.status) + ": kernel " + r.kernel + ", size " + r.size + ", input " + r.input + ", seed " +
              std::to_string(r.seed) + (r.outcome.expectation.empty() ? "" : ", expectation '" + r.outcome.expectation + "'"),
          "");
    print(r.outcome.message, "  ");
    if (!r.outcome.first_failure.empty()) print("first wrong: " + r.outcome.first_failure, "  ");
  }
  for (const auto& [key, rows] : expected) {
    std::string runs;
    for (const CheckRow* r : rows) runs.append(runs.empty() ? "" : ", ").append(r->kernel + " " + r->size + " " + r->input);
    out << "\n";
    print(key + ", " + std::to_string(rows.size()) + " runs: " + runs, "");
    print(rows.front()->outcome.message + " (the first run's message; the others differ only in their counts)", "  ");
  }
  out << "\n" << summary.rows.size() << " runs:";
  for (const auto& [status, n] : counts) out << " " << n << " " << status_name(status);
  out << "; " << summary.unexpected_failures() << " unexpected failures\n";
}

}  // namespace shaderwatch
