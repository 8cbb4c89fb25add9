#include "ingest/benchmark_name.h"

#include <array>

namespace shaderwatch {

namespace {

bool is_measurement_decoration(std::string_view segment) {
  static constexpr std::array<std::string_view, 3> kFlags = {"manual_time", "real_time", "process_time"};
  static constexpr std::array<std::string_view, 4> kKeys = {"iterations:", "repeats:", "min_time:", "min_warmup_time:"};
  for (auto flag : kFlags)
    if (segment == flag) return true;
  for (auto key : kKeys)
    if (segment.size() > key.size() && segment.substr(0, key.size()) == key) return true;
  return false;
}

}  // namespace

NameParts split_name(std::string_view name) {
  NameParts n;
  const auto a = name.find('/');
  n.family = std::string(name.substr(0, a));
  if (a == std::string_view::npos) return n;
  const auto b = name.find('/', a + 1);
  n.variant = std::string(name.substr(a + 1, b == std::string_view::npos ? std::string_view::npos : b - a - 1));
  n.has_config = b != std::string_view::npos;
  if (n.has_config) n.config = std::string(name.substr(b + 1));
  return n;
}

std::string series_key(std::string_view run_name) {
  std::string key;
  size_t start = 0;
  while (start <= run_name.size()) {
    const size_t slash = run_name.find('/', start);
    const size_t end = slash == std::string_view::npos ? run_name.size() : slash;
    const std::string_view segment = run_name.substr(start, end - start);
    // The first segment is the benchmark's own name, whatever it looks like.
    if (start == 0 || !is_measurement_decoration(segment)) {
      if (start != 0) key += '/';
      key += segment;
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return key;
}

}  // namespace shaderwatch
