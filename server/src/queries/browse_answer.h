// The browsing lists as values: GET /api/v1/gpus, /drivers, /benchmarks and /series.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "queries/answer_common.h"

namespace shaderwatch {

struct GpuEntry {
  GpuRef gpu;
  std::int64_t runs = 0;
  std::string first_seen, last_seen;
};
struct GpuList {
  std::vector<GpuEntry> gpus;
};

struct DriverEntry {
  std::int64_t gpu_id = 0;
  std::string driver_name, driver_version, driver_info, api_version;
  std::int64_t runs = 0;
  std::string first_seen, last_seen;
};
struct DriverList {
  std::vector<DriverEntry> drivers;
};

struct BenchmarkEntry {
  std::int64_t id = 0;
  std::string name, family, variant, config;
};
struct BenchmarkPage {
  std::vector<BenchmarkEntry> benchmarks;
  std::int64_t limit = 0, offset = 0;
};

struct SeriesEntry {
  std::int64_t id = 0;
  std::string benchmark;
  GpuRef gpu;
};
struct SeriesPage {
  std::vector<SeriesEntry> series;
  std::int64_t limit = 0, offset = 0;
};

}  // namespace shaderwatch
