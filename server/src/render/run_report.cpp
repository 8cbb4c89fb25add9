#include "render/run_report.h"

#include "render/escape.h"

#include "common/quantity_text.h"
#include "ingest/benchmark_name.h"
#include "queries/verdict_explanation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <shaderwatch/dashboard_links.h>

using nlohmann::json;

namespace shaderwatch::report {
namespace {

std::string fmt(const char* f, double v) { return format_number(f, v); }

// JUnit's classname and name: family/variant and the rest (size/mode[/devN]) of a benchmark name; a name
// with fewer parts keeps it whole as both.
std::pair<std::string, std::string> junit_names(const std::string& name) {
  const auto parts = shaderwatch::split_name(name);
  if (!parts.has_config) return {name, name};
  return {parts.kernel(), parts.config};
}

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// Every benchmark of the run once, in the run's order: measured points first, then those with no time.
struct Row {
  std::string name, outcome, error_message, label;
  double median_ns = NAN, err_bound_ratio = NAN;
};
std::vector<Row> rows_of(const RunDetail& run) {
  std::vector<Row> rows;
  std::set<std::string> seen;
  for (const auto& p : run.points) {
    // A point with no counters (no rows to read them from) passed.
    Row r{p.benchmark, p.counters ? std::string(contract::row_status_word(p.counters->outcome)) : "pass", p.error_message, p.label,
          p.value_ns.value_or(NAN), p.counters ? p.counters->err_bound_ratio : NAN};
    if (seen.insert(r.name).second) rows.push_back(std::move(r));
  }
  for (const auto& n : run.not_measured) {
    Row r{n.benchmark, std::string(contract::row_status_word(n.outcome)), n.error_message, "", NAN, NAN};
    if (seen.insert(r.name).second) rows.push_back(std::move(r));
  }
  return rows;
}

// An alert's optional number, NaN where absent (printed as such, as time_text and pct_text show "-").
double num(const std::optional<double>& v) { return v.value_or(NAN); }

std::string link(const std::string& base, const std::string& hash) { return contract::dashboard_page(base, hash); }

// The verdict's explanations by benchmark, in the verdict's order (a benchmark can have more than one: a wrong
// answer and a regression).
std::map<std::string, std::vector<const Explanation*>> explanations_by_benchmark(const Verdict& v) {
  std::map<std::string, std::vector<const Explanation*>> m;
  for (const auto& e : v.explanations) m[e.benchmark].push_back(&e);
  return m;
}

// An explanation with its next steps, as lines of text (junit's failure body, the terminal).
std::string explanation_text(const Explanation& e, const std::string& run_id, const std::string& dashboard) {
  const NextStep n = next_step(e, run_id, dashboard);
  std::string t = e.headline + "\n" + e.evidence + "\nchart: " + n.series_url + "\n";
  if (!n.compare_url.empty()) t += "compare with run " + e.baseline_run + ": " + n.compare_url + "\n";
  if (!n.alert_url.empty()) t += "alert: " + n.alert_url + "\n";
  if (!n.reproduce.empty()) t += "measure it on your GPU: " + n.reproduce + "\n";
  if (!n.bisect.empty()) t += "find the commit: " + n.bisect + "\n";
  return t;
}

// What a benchmark's test case says: a failure (with its type and headline), a skip, and lines for its output.
struct JunitCase {
  std::string failure, failure_type, message;
  bool skip = false;
  std::vector<std::string> out_lines;
};

JunitCase junit_case(const Row& r, const std::vector<const Explanation*>& explained, const std::string& run_id,
                     const std::string& dashboard) {
  JunitCase c;
  for (const Explanation* e : explained) {
    if (!e->failing) {
      c.out_lines.push_back(e->headline);
      continue;
    }
    if (c.failure.empty()) {
      c.failure_type = e->finding;
      c.message = e->headline;
    } else {
      c.failure += "\n";
    }
    c.failure += explanation_text(*e, run_id, dashboard);
  }
  // A failing row the verdict does not list (a run judged before its rows had a status): the bench's own message.
  if (c.failure.empty() && r.outcome == "fail") {
    c.failure_type = "correctness_failure";
    c.failure = c.message = r.error_message;
  }
  if (r.outcome == "unsupported" || r.outcome == "skip") c.skip = true;
  if (r.outcome == "flake") c.out_lines.push_back(r.error_message);
  if (r.outcome == "xfail") c.out_lines.push_back("expected failure (XFAIL): " + r.error_message);
  // An unexpected pass of an expected failure passes: the negative control's race shows only on some
  // runs, and a driver bug may hide on one run; "not observed this time" is no defect. The line keeps
  // it visible, and the entry stays until someone removes it.
  if (r.outcome == "xpass") c.out_lines.push_back("expected failure did not fail this time (XPASS): " + r.error_message);
  return c;
}

// No `time`: a test case's time is a duration, and the run records none per benchmark (its median is no duration).
void write_testcase(std::ostream& out, const Row& r, const JunitCase& c) {
  const auto [classname, name] = junit_names(r.name);
  out << "    <testcase classname=\"" << xml_text(classname) << "\" name=\"" << xml_text(name) << "\"";
  if (c.failure.empty() && !c.skip && c.out_lines.empty()) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (!c.failure.empty()) {
    // The headline (what most CI test views show) in `message`, the whole text in the body (GitLab reads only that).
    std::string headline = c.message;
    if (headline.size() > 300) headline = headline.substr(0, 297) + "...";
    out << "      <failure type=\"" << xml_text(c.failure_type) << "\" message=\"" << xml_text(headline) << "\">"
        << xml_text(c.failure) << "</failure>\n";
  } else if (c.skip) {
    out << "      <skipped message=\"" << xml_text(r.error_message) << "\">" << xml_text(r.error_message)
        << "</skipped>\n";
  }
  if (!c.out_lines.empty()) {
    std::string text;
    for (const auto& l : c.out_lines) text += l + "\n";
    out << "      <system-out>" << xml_text(text) << "</system-out>\n";
  }
  out << "    </testcase>\n";
}

// The markdown summary's sections, each row added only while the text stays under a byte budget.
class BudgetedSections {
 public:
  explicit BudgetedSections(std::size_t budget) : budget_(budget) {}
  void table(const std::string& title, const std::string& header, const std::vector<std::string>& rows, bool folded) {
    if (rows.empty() || cut_) return;
    std::string t = folded ? "\n<details><summary>" + title + "</summary>\n\n" : "\n#### " + title + "\n\n";
    t += header;
    std::size_t added = 0;
    for (const auto& r : rows) {
      if (body_.size() + t.size() + r.size() > budget_) {
        cut_ = true;
        break;
      }
      t += r;
      ++added;
    }
    if (added == 0) return;
    if (folded) t += "\n</details>\n";
    body_ += t;
  }
  const std::string& body() const { return body_; }
  bool cut() const { return cut_; }

 private:
  std::size_t budget_;
  std::string body_;
  bool cut_ = false;
};

std::string plural(std::size_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// The summary's first lines: pass or fail with what failed, the GPU, driver, commit and run; the counts; the
// verdict's history line.
std::string summary_head(const RunReportInput& in) {
  const RunSummary& meta = in.run.run;
  const std::string& run_id = meta.id;
  const Verdict& v = in.verdict;
  const std::size_t correctness = v.correctness.size(), regressions = v.regressions.size(), slowdowns = v.slowdowns.size();
  const bool pass = !v.fail;
  std::string head = summary_marker(run_id) + "\n";
  std::string problems;
  if (correctness) problems += plural(correctness, "correctness failure");
  if (regressions) problems += (problems.empty() ? "" : ", ") + plural(regressions, "regression");
  if (slowdowns) problems += (problems.empty() ? "" : ", ") + plural(slowdowns, "slowdown") + " in this run";
  head += "### " + std::string(pass ? "✅ shaderwatch: pass" : "❌ shaderwatch: fail") + (problems.empty() ? "" : " (" + problems + ")") +
          " · " + md_text(meta.gpu.name) + " · " + md_text(meta.driver.name + " " + meta.driver.info) + " · commit " +
          md_code(meta.commit) + (meta.branch.empty() ? "" : " on " + md_code(meta.branch)) + " · [run " +
          md_text(run_id) + "](" + contract::dashboard_run_page(in.dashboard, run_id) + ")\n";
  head += "\n" + std::to_string(rows_of(in.run).size()) + " benchmarks, " + plural(v.suspects.size(), "suspect") + ", " +
          std::to_string(v.skipped.size()) + " skipped (unsupported or an expectations entry).\n";
  // How the gate judged the run is for whoever doubts it: folded, one click away.
  if (!v.coverage.line.empty())
    head += "\n<details><summary>How the gate judged this run</summary>\n\n" + md_text(v.coverage.line) + "\n</details>\n";
  if (v.noise) head += "\n" + md_text(v.noise->line) + "\n";
  return head;
}

}  // namespace

std::string summary_marker(const std::string& run_id) { return "<!-- shaderwatch-run: " + run_id + " -->"; }

std::string junit_xml(const RunReportInput& in) {
  const RunSummary& meta = in.run.run;
  const auto explained = explanations_by_benchmark(in.verdict);
  const std::vector<Row> rows = rows_of(in.run);
  std::ostringstream cases;
  int failures = 0, skipped = 0;
  for (const Row& r : rows) {
    const auto e = explained.find(r.name);
    const JunitCase c = junit_case(r, e == explained.end() ? std::vector<const Explanation*>() : e->second, meta.id, in.dashboard);
    if (!c.failure.empty()) ++failures;
    else if (c.skip) ++skipped;
    write_testcase(cases, r, c);
  }

  const std::string suite = meta.gpu.name + " / " + meta.driver.name + " " + meta.driver.info;
  const std::string& run_id = meta.id;
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"shaderwatch\" tests=\"" << rows.size() << "\" failures=\"" << failures
    << "\" errors=\"0\" skipped=\"" << skipped << "\">\n";
  x << "  <testsuite name=\"" << xml_text(suite) << "\" tests=\"" << rows.size() << "\" failures=\"" << failures
    << "\" errors=\"0\" skipped=\"" << skipped << "\" timestamp=\""
    << xml_text(meta.started_at) << "\" hostname=\"" << xml_text(meta.runner) << "\">\n";
  x << "    <properties>\n";
  const std::pair<const char*, std::string> props[] = {
      {"run_id", run_id},
      {"verdict", in.verdict.fail ? "fail" : "pass"},
      {"history", in.verdict.coverage.line},
      {"commit", meta.commit},
      {"branch", meta.branch},
      {"merge_base", in.verdict.baseline && in.verdict.baseline->merge_base ? *in.verdict.baseline->merge_base : ""},
      {"baseline_run", in.verdict.baseline && in.verdict.baseline->run_id ? *in.verdict.baseline->run_id : ""},
      {"runner", meta.runner},
      {"gpu", meta.gpu.name},
      {"driver", meta.driver.name + " " + meta.driver.info},
      {"run_url", contract::dashboard_run_page(in.dashboard, run_id)},
      {"job_url", meta.job_url}};
  for (const auto& [k, v] : props)
    if (!v.empty()) x << "      <property name=\"" << k << "\" value=\"" << xml_text(v) << "\"/>\n";
  x << "    </properties>\n" << cases.str() << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

std::string summary_markdown(const RunReportInput& in, std::size_t max_bytes) {
  const std::string& run_id = in.run.run.id;
  const Verdict& v = in.verdict;
  const std::string head = summary_head(in);
  // Sections in order of importance; each row is added only while the text stays under max_bytes.
  const std::string cut_line = "\n_Cut to fit a comment: the whole run is at [the dashboard](" +
                               contract::dashboard_run_page(in.dashboard, run_id) + ")._\n";
  BudgetedSections sections(max_bytes > head.size() + cut_line.size() + 200 ? max_bytes - head.size() - cut_line.size() - 200 : 0);

  // The explanations: what failed, then what did not fail yet, each as the verdict words it.
  const auto explanation_row = [&](const Explanation& e) {
    return "| [" + md_code(e.benchmark) + "](" + link(in.dashboard, "series/" + std::to_string(e.series_id)) + ") | " +
           md_text(e.headline) + " | " + md_text(e.evidence) + " |\n";
  };
  const std::string header = "| benchmark | finding | what changed |\n|---|---|---|\n";
  std::vector<std::string> rows, failing_names;
  const Explanation* first_failing = nullptr;
  for (const auto& e : v.explanations)
    if (e.failing) {
      rows.push_back(explanation_row(e));
      failing_names.push_back(e.benchmark);
      if (!first_failing) first_failing = &e;
    }
  sections.table("What failed (" + std::to_string(rows.size()) + ")", header, rows, false);
  // The next steps, once for the run: the compare view, one command measuring every failing benchmark, bisect.
  rows.clear();
  if (first_failing) {
    const NextStep n = next_step(*first_failing, run_id, in.dashboard);
    if (!n.compare_url.empty())
      rows.push_back("- Every benchmark of this run beside run " + md_text(first_failing->baseline_run) + ": [compare](" +
                     n.compare_url + ")\n");
    if (const auto cmd = reproduce_command(failing_names); !cmd.empty())
      rows.push_back("- Measure them on your GPU: `" + cmd + "`\n");
    if (!n.bisect.empty())
      rows.push_back("- Find the commit that did it (" + md_code(first_failing->good_commit.substr(0, 12)) + ".." +
                     md_code(first_failing->bad_commit.substr(0, 12)) + "): `" + n.bisect + "`" +
                     (failing_names.size() > 1 ? " (another benchmark: change `--benchmark`)" : "") + "\n");
  }
  sections.table("Next steps", "", rows, false);
  rows.clear();
  for (const auto& e : v.explanations)
    if (!e.failing) rows.push_back(explanation_row(e));
  sections.table("Not failing yet (" + std::to_string(rows.size()) + "): suspects, unconfirmed and acknowledged regressions",
                 header, rows, false);
  rows.clear();
  for (const auto& a : in.improvements)
    rows.push_back("| " + md_code(a.benchmark) + " | " + time_text(num(a.before_ns)) + " → " + time_text(num(a.after_ns)) +
                   " | " + pct_text(num(a.delta_pct)) + " | " + md_text(a.cause) + " |\n");
  sections.table("Improvements (" + std::to_string(rows.size()) + ")",
                 "| benchmark | before → after | delta | cause |\n|---|---|---|---|\n", rows, true);
  rows.clear();
  for (const auto& s : v.skipped) rows.push_back("| " + md_code(s.benchmark) + " | " + md_text(s.reason) + " |\n");
  sections.table("Unsupported on this device (" + std::to_string(rows.size()) + ")", "| benchmark | reason |\n|---|---|\n", rows, true);

  return head + sections.body() + (sections.cut() ? cut_line : "");
}

namespace {
std::string csv_number(const char* format, double x) { return std::isfinite(x) ? fmt(format, x) : ""; }
}  // namespace

// name, the bench's outcome, the verdict's finding (its explanation: baseline, change, threshold, what changed);
// failures first, then the other findings, then the rest.
std::string results_csv(const RunReportInput& in) {
  const auto explained = explanations_by_benchmark(in.verdict);
  std::vector<std::pair<const Explanation*, Row>> rows;
  for (const Row& r : rows_of(in.run)) {
    const auto e = explained.find(r.name);
    rows.push_back({e == explained.end() ? nullptr : e->second.front(), r});
  }
  const auto rank = [](const Explanation* e) { return !e ? 2 : e->failing ? 0 : 1; };
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  std::string out = "name,status,verdict,median_us,baseline_us,change_pct,floor_pct,err_bound_ratio,label,baseline_run,explanation\n";
  for (const auto& [e, r] : rows) {
    out += csv_field(r.name) + "," + upper(r.outcome) + ",";
    out += e ? e->finding + "," + csv_number("%.3f", r.median_ns / 1e3) + "," + csv_number("%.3f", e->before_ns / 1e3) + "," +
                   csv_number("%.2f", e->change_pct) + "," + csv_number("%.2f", e->floor_pct) + ","
             : "," + csv_number("%.3f", r.median_ns / 1e3) + ",,,,";
    out += csv_number("%.3g", r.err_bound_ratio) + "," + csv_field(r.label) + ",";
    out += e ? csv_field(e->baseline_run) + "," + csv_field(e->headline + "; " + e->evidence) : ",";
    out += "\n";
  }
  return out;
}

}  // namespace shaderwatch::report
