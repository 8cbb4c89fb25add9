// A point's repetitions as stored: a blob of little-endian doubles (the host order on every target).
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace shaderwatch {

inline std::string pack_reps(const std::vector<double>& v) {
  std::string s(v.size() * sizeof(double), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  return s;
}
inline std::vector<double> unpack_reps(std::string_view b) {
  std::vector<double> v(b.size() / sizeof(double));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(double));
  return v;
}

}  // namespace shaderwatch
