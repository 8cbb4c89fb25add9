// A main-branch point as a process holds it in memory (storage/main_history.h) and as the runs it catches up on bring
// it (storage/main_runs_follower.h): what the verdict's evidence and detection's windows read of a point.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

namespace shaderwatch {

struct MainPoint {
  std::int64_t started_ms = 0, run_id = 0;
  double value = 0, spread = 0;
  std::string spirv;
};

// Whether point a comes before (ms, pk) in a series' order: by start, then run.
inline bool earlier(const MainPoint& a, std::int64_t ms, std::int64_t pk) {
  return std::tie(a.started_ms, a.run_id) < std::tie(ms, pk);
}

struct HeldPoint {  // a main point and its series
  std::int64_t series_id = 0;
  MainPoint point;
};

}  // namespace shaderwatch
