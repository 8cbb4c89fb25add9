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

}  // namespace shaderwatch
