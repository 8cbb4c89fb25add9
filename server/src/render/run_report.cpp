#include "render/run_report.h"

#include "render/escape.h"

#include "ingest/benchmark_name.h"

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

std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

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

std::string time_text(double ns) {
  if (!std::isfinite(ns)) return "-";
  if (ns >= 1e9) return fmt("%.3g s", ns / 1e9);
  if (ns >= 1e6) return fmt("%.3g ms", ns / 1e6);
  if (ns >= 1e3) return fmt("%.3g us", ns / 1e3);
  return fmt("%.3g ns", ns);
}
std::string pct_text(double pct) { return std::isfinite(pct) ? fmt("%+.1f%%", pct) : "-"; }

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

// Benchmark name -> the verdict's (first) entry of that list.
template <class Entry>
std::map<std::string, const Entry*> by_benchmark(const std::vector<Entry>& list) {
  std::map<std::string, const Entry*> m;
  for (const auto& e : list) m.emplace(e.benchmark, &e);
  return m;
}

// An alert's optional number, NaN where absent (printed as such, as time_text and pct_text show "-").
double num(const std::optional<double>& v) { return v.value_or(NAN); }

std::string alert_line(const Alert& a) {
  return "regression " + pct_text(num(a.delta_pct)) + " (" + time_text(num(a.before_ns)) + " -> " +
         time_text(num(a.after_ns)) + ", noise " + fmt("%.2f%%", num(a.noise_pct)) + ", p " +
         fmt("%.2g", num(a.p_value)) + ") from run " + a.run_id + ", cause " + a.cause + ": " +
         str(a.attribution, "summary");
}

std::string link(const std::string& base, const std::string& hash) { return contract::dashboard_page(base, hash); }

// What the slowdown was judged against, in words. On another branch the baseline is main's, at the merge base (the
// verdict's `baseline`): said so, where "the previous 2 runs" alone read as the branch's own.
std::string baseline_text(const SlowdownEntry& s, const std::optional<VerdictBaseline>& base = std::nullopt) {
  const auto runs = s.baseline_runs;
  const std::string level = s.against == analysis::Baseline::Level ? "its level (median of " + std::to_string(runs) + " runs)"
                            : runs == 1                            ? "the previous run"
                                                                   : "the previous " + std::to_string(runs) + " runs (median)";
  if (!base) return level;
  return base->branch + " at the merge base" + (base->merge_base ? " " + *base->merge_base : std::string()) +
         (base->run_id ? " (run " + *base->run_id + ")" : std::string()) + ": " + level;
}

std::string slowdown_line(const SlowdownEntry& s, const std::optional<VerdictBaseline>& base) {
  return "slowdown " + fmt("%.2fx", s.value_ns / s.baseline_ns) + " (" + time_text(s.baseline_ns) + " -> " +
         time_text(s.value_ns) + ") against " + baseline_text(s, base) + ", beyond any noise: the gate's floor is " +
         pct_text(s.floor_pct) + " (run-to-run noise " + fmt("%.2f%%", s.noise_pct) + ")";
}

// A verdict's lists by benchmark, for the JUnit report's one test case per benchmark.
struct VerdictByBenchmark {
  std::map<std::string, const CorrectnessEntry*> correctness;
  std::map<std::string, const Alert*> regressions, acknowledged, unconfirmed;
  std::map<std::string, const SlowdownEntry*> slowdowns;
  std::map<std::string, const SuspectEntry*> suspects;
  explicit VerdictByBenchmark(const Verdict& v)
      : correctness(by_benchmark(v.correctness)), regressions(by_benchmark(v.regressions)),
        acknowledged(by_benchmark(v.acknowledged_regressions)), unconfirmed(by_benchmark(v.unconfirmed_regressions)),
        slowdowns(by_benchmark(v.slowdowns)), suspects(by_benchmark(v.suspects)) {}
};

// What a benchmark's test case says: a failure (with its type), a skip, and lines for its output.
struct JunitCase {
  std::string failure, failure_type;
  bool skip = false;
  std::vector<std::string> out_lines;
};

JunitCase junit_case(const Row& r, const VerdictByBenchmark& v, const std::string& dashboard,
                     const std::optional<VerdictBaseline>& base) {
  JunitCase c;
  if (const auto f = v.correctness.find(r.name); f != v.correctness.end()) {
    c.failure_type = detect::to_string(f->second->kind);
    c.failure = c.failure_type + ": " + f->second->error_message;
  } else if (r.outcome == "fail") {
    c.failure_type = "correctness_failure";
    c.failure = r.error_message;
  }
  if (const auto g = v.regressions.find(r.name); g != v.regressions.end()) {
    if (!c.failure.empty()) c.failure += "\n";
    else c.failure_type = "regression";
    c.failure += alert_line(*g->second) + "\n" + link(dashboard, "alerts?id=" + std::to_string(g->second->id));
  }
  if (const auto d = v.slowdowns.find(r.name); d != v.slowdowns.end()) {
    if (!c.failure.empty()) c.failure += "\n";
    else c.failure_type = "slowdown";
    c.failure += slowdown_line(*d->second, base);
  }
  if (r.outcome == "unsupported" || r.outcome == "skip") c.skip = true;
  if (r.outcome == "flake") c.out_lines.push_back(r.error_message);
  if (r.outcome == "xfail") c.out_lines.push_back("expected failure (XFAIL): " + r.error_message);
  // An unexpected pass of an expected failure passes: the negative control's race shows only on some
  // runs, and a driver bug may hide on one run; "not observed this time" is no defect. The line keeps
  // it visible, and the entry stays until someone removes it.
  if (r.outcome == "xpass") c.out_lines.push_back("expected failure did not fail this time (XPASS): " + r.error_message);
  if (const auto a = v.acknowledged.find(r.name); a != v.acknowledged.end())
    c.out_lines.push_back("acknowledged " + alert_line(*a->second));
  if (const auto a = v.unconfirmed.find(r.name); a != v.unconfirmed.end())
    c.out_lines.push_back("not failing until more runs confirm it: " + alert_line(*a->second));
  if (const auto s = v.suspects.find(r.name); s != v.suspects.end())
    c.out_lines.push_back("suspect: " + pct_text(s->second->delta_pct) + " against its level (" +
                          time_text(s->second->level_ns) + " -> " + time_text(s->second->value_ns) + ", z " +
                          fmt("%.1f", s->second->z) + "); not a failure until later runs confirm it");
  return c;
}

void write_testcase(std::ostream& out, const Row& r, const JunitCase& c, double seconds) {
  const auto [classname, name] = junit_names(r.name);
  out << "    <testcase classname=\"" << xml_text(classname) << "\" name=\"" << xml_text(name) << "\" time=\""
      << fmt("%.9f", seconds) << "\"";
  if (c.failure.empty() && !c.skip && c.out_lines.empty()) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (!c.failure.empty()) {
    // The headline (what most CI test views show) in `message`, the whole text in the body (GitLab reads only that).
    std::string headline = c.failure.substr(0, c.failure.find('\n'));
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
  if (!v.coverage.line.empty()) head += "\n" + md_text(v.coverage.line) + "\n";
  if (v.noise) head += "\n" + md_text(v.noise->line) + "\n";
  return head;
}

}  // namespace

std::string summary_marker(const std::string& run_id) { return "<!-- shaderwatch-run: " + run_id + " -->"; }

std::string junit_xml(const RunReportInput& in) {
  const RunSummary& meta = in.run.run;
  const VerdictByBenchmark verdict(in.verdict);
  const std::vector<Row> rows = rows_of(in.run);
  std::ostringstream cases;
  int failures = 0, skipped = 0;
  double total_s = 0;
  for (const Row& r : rows) {
    const double seconds = std::isfinite(r.median_ns) ? r.median_ns / 1e9 : 0.0;
    total_s += seconds;
    const JunitCase c = junit_case(r, verdict, in.dashboard, in.verdict.baseline);
    if (!c.failure.empty()) ++failures;
    else if (c.skip) ++skipped;
    write_testcase(cases, r, c, seconds);
  }

  const std::string suite = meta.gpu.name + " / " + meta.driver.name + " " + meta.driver.info;
  const std::string& run_id = meta.id;
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"shaderwatch\" tests=\"" << rows.size() << "\" failures=\"" << failures
    << "\" errors=\"0\" skipped=\"" << skipped << "\" time=\"" << fmt("%.6f", total_s) << "\">\n";
  x << "  <testsuite name=\"" << xml_text(suite) << "\" tests=\"" << rows.size() << "\" failures=\"" << failures
    << "\" errors=\"0\" skipped=\"" << skipped << "\" time=\"" << fmt("%.6f", total_s) << "\" timestamp=\""
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

  std::vector<std::string> rows;
  for (const auto& d : v.slowdowns)
    rows.push_back("| " + md_code(d.benchmark) + " | " + time_text(d.baseline_ns) + " → " + time_text(d.value_ns) + " | " +
                   fmt("%.2fx", d.value_ns / d.baseline_ns) + " | " + md_text(baseline_text(d, v.baseline)) + " | " +
                   pct_text(d.floor_pct) + " |\n");
  sections.table("Slowdowns in this run (" + std::to_string(rows.size()) + ", beyond any noise: the single-run gate)",
                 "| benchmark | before → this run | ratio | against | gate floor |\n|---|---|---|---|---|\n", rows, false);
  rows.clear();
  for (const auto& a : v.regressions)
    rows.push_back("| " + md_code(a.benchmark) + " | " + time_text(num(a.before_ns)) + " → " + time_text(num(a.after_ns)) +
                   " | " + pct_text(num(a.delta_pct)) + " | " + fmt("%.2f%%", num(a.noise_pct)) + " | " +
                   fmt("%.2g", num(a.p_value)) + " | " + md_text(a.cause) + " | [alert " + std::to_string(a.id) + "](" +
                   link(in.dashboard, "alerts?id=" + std::to_string(a.id)) + ") |\n");
  sections.table("Regressions (" + std::to_string(rows.size()) + ")",
                 "| benchmark | before → after | delta | noise | p | cause | alert |\n|---|---|---|---|---|---|---|\n", rows, false);
  rows.clear();
  for (const auto& c : v.correctness)
    rows.push_back("| " + md_code(c.benchmark) + " | " + md_text(detect::to_string(c.kind)) + " | " +
                   md_text(c.error_message) + " |\n");
  sections.table("Correctness failures (" + std::to_string(rows.size()) + ")", "| benchmark | kind | message |\n|---|---|---|\n",
                 rows, false);
  rows.clear();
  for (const auto& a : v.unconfirmed_regressions)
    rows.push_back("| " + md_code(a.benchmark) + " | " + time_text(num(a.before_ns)) + " → " + time_text(num(a.after_ns)) +
                   " | " + pct_text(num(a.delta_pct)) + " | alert " + std::to_string(a.id) +
                   ", not yet beyond the gate's score |\n");
  for (const auto& s : v.suspects)
    rows.push_back("| " + md_code(s.benchmark) + " | " + time_text(s.level_ns) + " → " + time_text(s.value_ns) + " | " +
                   pct_text(s.delta_pct) + " | " + fmt("%.1f", s.z) + " |\n");
  sections.table("Suspects (" + std::to_string(rows.size()) + ", not failures until later runs confirm them)",
                 "| benchmark | level → this run | delta | z |\n|---|---|---|---|\n", rows, false);
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
// One row of results.csv beyond the bench's own: what the verdict found on the benchmark, against what baseline,
// by how much, past which threshold (empty where the verdict found nothing).
struct CsvFinding {
  std::string verdict;  // correctness_failure, correctness_regression, regression, slowdown, suspect, acknowledged, unconfirmed
  double baseline_ns = NAN, change_pct = NAN, floor_pct = NAN;
  int rank = 9;  // failing findings first, then the listed ones, then the rest
};
CsvFinding csv_finding(const Row& r, const VerdictByBenchmark& v) {
  const auto change = [&](double base) { return base > 0 && std::isfinite(r.median_ns) ? 100 * (r.median_ns / base - 1) : NAN; };
  if (const auto f = v.correctness.find(r.name); f != v.correctness.end())
    return {std::string(detect::to_string(f->second->kind)), NAN, NAN, NAN, 0};
  for (const auto* list : {&v.regressions, &v.acknowledged, &v.unconfirmed})
    if (const auto a = list->find(r.name); a != list->end()) {
      const double before = num(a->second->before_ns);
      return {list == &v.regressions ? "regression" : list == &v.acknowledged ? "acknowledged" : "unconfirmed", before,
              change(before), num(a->second->floor_pct), list == &v.regressions ? 1 : 3};
    }
  if (const auto sl = v.slowdowns.find(r.name); sl != v.slowdowns.end())
    return {"slowdown", sl->second->baseline_ns, sl->second->delta_pct, sl->second->floor_pct, 1};
  if (const auto su = v.suspects.find(r.name); su != v.suspects.end())
    return {"suspect", su->second->level_ns, su->second->delta_pct, su->second->floor_pct, 2};
  return {};
}
std::string csv_number(const char* format, double x) { return std::isfinite(x) ? fmt(format, x) : ""; }
}  // namespace

// name, the bench's outcome, the verdict's finding with its baseline, change and threshold; failures first.
std::string results_csv(const RunReportInput& in) {
  const VerdictByBenchmark v(in.verdict);
  std::vector<std::pair<CsvFinding, Row>> rows;
  for (const Row& r : rows_of(in.run)) rows.push_back({csv_finding(r, v), r});
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first.rank < b.first.rank; });
  std::string out = "name,status,verdict,median_us,baseline_us,change_pct,floor_pct,err_bound_ratio,label\n";
  for (const auto& [f, r] : rows)
    out += csv_field(r.name) + "," + upper(r.outcome) + "," + f.verdict + "," + csv_number("%.3f", r.median_ns / 1e3) + "," +
           csv_number("%.3f", f.baseline_ns / 1e3) + "," + csv_number("%.2f", f.change_pct) + "," +
           csv_number("%.2f", f.floor_pct) + "," + csv_number("%.3g", r.err_bound_ratio) + "," + csv_field(r.label) + "\n";
  return out;
}

}  // namespace shaderwatch::report
