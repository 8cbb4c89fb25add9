#pragma once
// The series key of a Google Benchmark run name: the name without the decoration Google Benchmark adds
// for how a benchmark was measured ("/iterations:1", "/repeats:10", "/min_time:0.5s",
// "/min_warmup_time:...", "/manual_time", "/real_time", "/process_time"). What it measured (arguments,
// "/threads:N") stays. shaderwatch-bench writes clean names already; older files and other producers'
// keep one series across changes in how they were run.
#include <string>
#include <string_view>

namespace shaderwatch {

std::string series_key(std::string_view run_name);

// A benchmark name's parts, the one place that reads its grammar: family/variant/config, the config being
// the rest (size/mode[/devN]). "a/b" has no config; "a" no variant either.
struct NameParts {
  std::string family, variant, config;
  bool has_config = false;  // a second '/' (even with nothing after it)
  std::string kernel() const { return variant.empty() ? family : family + "/" + variant; }
};
NameParts split_name(std::string_view name);

}  // namespace shaderwatch
