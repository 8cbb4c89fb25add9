#include "report/terminal_report.h"

#include "families/kernel_family.h"
#include "common/text_wrap.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <ostream>
#include <sstream>

namespace shaderwatch {

namespace {

constexpr const char* kRed = "\033[31m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kReset = "\033[0m";

std::string family_label(Family f) { return std::string(kernel_family(f).display_name); }

std::string variant_of(const BenchmarkResult& r) {
  const auto slash = r.spec->name.find('/');
  return slash == std::string::npos ? r.spec->name : r.spec->name.substr(slash + 1);
}

bool measured(const BenchmarkResult& r) { return r.error_message.empty() && r.measurement.stats.count > 0; }

bool is_failure(CheckStatus s) { return is_unexpected_failure(s); }

const char* status_color(CheckStatus s) {
  if (is_failure(s)) return kRed;
  if (s == CheckStatus::Pass || s == CheckStatus::Flake) return kGreen;
  if (s == CheckStatus::UnexpectedPass) return kYellow;
  return "";
}

std::string paint(const std::string& text, const char* color, const ReportStyle& style) {
  if (!style.color || !*color) return text;
  return std::string(color).append(text).append(kReset);
}

// Appends `word` to `list`, after `separator` unless the list is empty.
void add_to(std::string& list, const char* separator, const std::string& word) {
  if (!list.empty()) list.append(separator);
  list.append(word);
}

void print_wrapped(std::ostream& out, const std::string& text, const ReportStyle& style, const char* color = "") {
  for (const auto& line : wrap_words(text, style.width)) out << paint(line, color, style) << "\n";
}

// The order rows are shown in: device, family, size, then the catalog's order and hot before cold.
struct GroupKey {
  std::string device;
  Family family;
  uint64_t items;
  std::string size;
  bool operator<(const GroupKey& o) const {
    return std::tie(device, family, items, size) < std::tie(o.device, o.family, o.items, o.size);
  }
  bool operator==(const GroupKey& o) const { return device == o.device && family == o.family && size == o.size; }
};

GroupKey group_of(const BenchmarkResult& r) { return {r.device, r.spec->family, r.size_items, r.size}; }

// A reason several rows share is one note: an expectations entry's outcome, or the same message.
std::string note_key(const BenchmarkResult& r) {
  if (!r.outcome.expectation.empty()) return status_name(r.outcome.status) + " " + r.outcome.expectation;
  return r.error_message;
}

// "[3]" for note index 2.
std::string note_mark(size_t index) {
  char text[32];
  std::snprintf(text, sizeof text, "[%zu]", index + 1);
  return text;
}

std::string pct_text(double pct) {
  char text[16];
  std::snprintf(text, sizeof text, pct >= 10 ? "%.0f%%" : "%.1f%%", pct);
  return text;
}

// The roofline column: % of roofline where bandwidth bounds the kernel, else the word of what does (its % would be
// near zero by design); "-" where there is no roofline (a CPU device) or no time.
std::string roofline_text(const BenchmarkResult& r) {
  if (r.spec->limit != contract::Limit::Bandwidth) return std::string(contract::limit_word(r.spec->limit));
  const double pct = pct_of_roofline(r.traffic, r.bandwidths, r.measurement.stats.median);
  return pct > 0 ? pct_text(pct) : "-";
}

}  // namespace

std::string duration_text(double seconds) {
  const double a = std::abs(seconds);
  const char* unit = "s";
  double v = seconds;
  if (a < 1e-6) v = seconds * 1e9, unit = "ns";
  else if (a < 1e-3) v = seconds * 1e6, unit = "us";
  else if (a < 1) v = seconds * 1e3, unit = "ms";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g %s", v, unit);
  return text;
}

bool stdout_wants_color() {
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR") && !(term && std::strcmp(term, "dumb") == 0);
}

void print_benchmark_table(std::ostream& out, const std::vector<BenchmarkResult>& results, const ReportStyle& style) {
  std::vector<const BenchmarkResult*> rows;
  size_t name_width = 7;
  for (const auto& r : results) {
    rows.push_back(&r);
    name_width = std::max(name_width, variant_of(r).size());
  }
  name_width = std::min<size_t>(name_width, 40);
  std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return group_of(*a) < group_of(*b); });
  const bool several_devices =
      std::any_of(rows.begin(), rows.end(), [&](auto* r) { return r->device != rows.front()->device; });

  std::vector<std::string> notes;  // in order of first use
  std::map<std::string, size_t> note_rows;
  char line[512];
  std::optional<GroupKey> current;
  for (const BenchmarkResult* r : rows) {
    const GroupKey key = group_of(*r);
    if (!current || !(*current == key)) {
      current = key;
      const std::string title = family_label(key.family) + " " + key.size + (several_devices ? " on " + key.device : "");
      std::snprintf(line, sizeof line, "%-*s %-4s %10s %7s %8s  %s", static_cast<int>(name_width + 2), title.c_str(),
                    "mode", "median", "spread", "roofline", "check");
      out << paint(line, kBold, style) << "\n";
    }
    std::string median = "-", spread = "-", roofline = "-", remark;
    if (measured(*r)) {
      const SampleStats& s = r->measurement.stats;
      median = duration_text(s.median);
      spread = pct_text(100 * (s.p75 - s.p25) / s.median);
      roofline = roofline_text(*r);
      if (s.multi_group()) remark = std::to_string(s.groups.size()) + " groups";
      if (!reached_precision(r->measurement.stop)) add_to(remark, ", ", "imprecise");
    }
    std::string status = status_name(r->outcome.status);
    if (!r->error_message.empty()) {
      const std::string key = note_key(*r);
      auto it = std::find(notes.begin(), notes.end(), key);
      if (it == notes.end()) it = notes.insert(notes.end(), key);
      ++note_rows[key];
      status.append(" ").append(note_mark(static_cast<size_t>(it - notes.begin())));
    }
    if (r->outcome.status == CheckStatus::Flake) add_to(remark, ", ", "passed on a rerun");
    std::snprintf(line, sizeof line, "  %-*.*s %-4s %10s %7s %8s  ", static_cast<int>(name_width), static_cast<int>(name_width),
                  variant_of(*r).c_str(), r->cold ? "cold" : "hot", median.c_str(), spread.c_str(), roofline.c_str());
    out << line << paint(status, status_color(r->outcome.status), style) << (remark.empty() ? "" : "  ") << remark << "\n";
  }
  print_wrapped(out,
                "median: of the kernel's timed dispatches (GPU timestamps); spread: their p25-p75 range over the median; "
                "roofline: the least time the kernel's memory traffic takes at the bandwidths this device showed at the "
                "start of the run, as a % of the median (100%: at the memory's limit; none on a CPU device); where "
                "bandwidth does not bound the kernel, what does instead: latency (steps that wait on each other: one "
                "invocation or workgroup doing the work, atomics or blending into one place, a chain of small "
                "dispatches) or compute (arithmetic per byte: a gather of many taps a pixel)",
                style);
  if (notes.empty()) return;
  out << "\n";
  for (size_t i = 0; i < notes.size(); ++i) {
    // The first row's message stands for the rows of its note.
    const auto first = std::find_if(rows.begin(), rows.end(), [&](auto* r) { return !r->error_message.empty() && note_key(*r) == notes[i]; });
    const size_t n = note_rows[notes[i]];
    std::string text = note_mark(i) + " ";
    if (n > 1) text.append(std::to_string(n)).append(" rows: ");
    text.append((*first)->error_message);
    if (n > 1) text.append(" (each row's own message is in the JSON)");
    print_wrapped(out, text, style);
  }
}

void print_failures(std::ostream& out, const std::vector<BenchmarkResult>& results) {
  size_t n = 0;
  for (const auto& r : results) {
    if (!is_unexpected_failure(r.outcome.status)) continue;
    out << r.name << ": " << r.error_message << "\n";
    ++n;
  }
  if (n) out << n << " benchmarks gave a wrong answer or an error\n";
}

void print_closing_summary(std::ostream& out, const std::vector<BenchmarkResult>& results, const ReportFacts& facts,
                           const ReportStyle& style) {
  out << "\n";
  std::string devices;
  for (const auto& d : facts.devices) add_to(devices, ", ", d);
  char line[512];
  std::snprintf(line, sizeof line, "%zu benchmarks on %s in %.1f s (seed %llu)", results.size(), devices.c_str(),
                facts.seconds, static_cast<unsigned long long>(facts.seed));
  print_wrapped(out, line, style, kBold);

  std::map<CheckStatus, size_t> counts;
  for (const auto& r : results) ++counts[r.outcome.status];
  std::string tally;
  for (const auto& [status, n] : counts) {
    std::string word = std::to_string(n) + " " + status_name(status);
    if (status == CheckStatus::ExpectedFail) word += " (expected)";
    add_to(tally, ", ", paint(word, status_color(status), style));
  }
  out << "checks: " << tally << "\n";

  // Per family and size, the fastest hot variant of the family's operation with the most variants (the
  // seeds' comparison: the luminance sums, the tone mapping operators, the boids averages).
  std::map<std::pair<std::string, Family>, std::map<std::string, std::set<std::string>>> variants;  // device, family -> op -> kernels
  for (const auto& r : results) variants[{r.device, r.spec->family}][r.spec->operation].insert(r.spec->name);
  std::map<GroupKey, const BenchmarkResult*> fastest;
  std::map<GroupKey, std::string> group_operation;
  for (const auto& r : results) {
    if (!measured(r) || r.cold) continue;
    const auto& ops = variants[{r.device, r.spec->family}];
    const auto main_op = std::max_element(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
      return a.second.size() < b.second.size();
    });
    if (r.spec->operation != main_op->first || main_op->second.size() < 2) continue;
    const GroupKey key = group_of(r);
    // The operation's kernels, not the family's (the table above lists them all): "of 15" above 17 rows says which.
    group_operation[key] = main_op->first + " (of " + std::to_string(main_op->second.size()) + ")";
    auto& best = fastest[key];
    if (!best || r.measurement.stats.median < best->measurement.stats.median) best = &r;
  }
  if (!fastest.empty()) out << "fastest hot variant per family and size, among the kernels of its main operation:\n";
  for (const auto& [key, r] : fastest) {
    const std::string roofline = roofline_text(*r);
    std::snprintf(line, sizeof line, "  %-15s %-9s %-30s %-27s %10s", family_label(key.family).c_str(), key.size.c_str(),
                  group_operation[key].c_str(), variant_of(*r).c_str(), duration_text(r->measurement.stats.median).c_str());
    out << line;
    if (r->spec->limit != contract::Limit::Bandwidth) out << "  " << roofline << "-bound";
    else if (roofline != "-") out << "  " << roofline << " of roofline";
    out << "\n";
  }
  if (std::any_of(results.begin(), results.end(), [](const auto& r) { return measured(r) && r.bandwidths.copy() <= 0; }))
    out << "roofline: none on a CPU device (its caches hold the inputs, which the bandwidth probes overflow)\n";
  if (facts.timing) facts.timing->print(out, facts.seconds);
  out << facts.saved << "\n";
  const char* color = facts.exit_status == 0 ? kGreen : kRed;
  print_wrapped(out, "exit " + std::to_string(facts.exit_status) + ": " + facts.exit_meaning, style, color);
}

}  // namespace shaderwatch
