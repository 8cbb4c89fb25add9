// The wall clock in Unix milliseconds (what is stored) and a monotonic clock (what is timed).
#pragma once

#include <chrono>
#include <cstdint>

namespace shaderwatch {

inline std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
inline std::uint64_t mono_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

}  // namespace shaderwatch
