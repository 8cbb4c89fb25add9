// GET /api/v1/rankings as a value: at one commit, per (family, config), each GPU's variants fastest first,
// the flips between GPUs and the GPUs fastest first per variant.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "queries/answer_common.h"

namespace shaderwatch {

struct RankedVariant {
  std::size_t rank = 0;  // 1: fastest
  std::string variant;
  double value_ns = 0;
  double noise_rel = 0;  // NaN where unknown
  std::string operation;  // what the variant computes, as its run said it (contract format 3), else format2_operation
  double pct_of_roofline = 0, pct_of_copy_peak = 0;  // NaN where the run's rows carry none
};

struct GpuRanking {
  GpuRef gpu;
  std::string run_id;  // the GPU's newest run at the commit
  std::vector<RankedVariant> ranking;
};

// Two variants of one operation in a different order on two GPUs, each order beyond noise.
struct RankingFlip {
  std::string operation, gpu_a, gpu_b, faster_on_a, faster_on_b;
  double gap_on_a_pct = 0, gap_on_b_pct = 0;
};

struct GpuTime {
  std::string gpu;  // its name
  double value_ns = 0;
};

struct VariantGpuOrder {
  std::string variant;
  std::vector<GpuTime> fastest_first;
  std::optional<std::string> fastest;  // named only where its lead is beyond both series' noise
  bool tie = false;                    // two GPUs or more and none clearly fastest
};

struct RankingGroup {
  std::string family, config;
  std::vector<GpuRanking> by_gpu;
  std::vector<RankingFlip> flips;
  std::vector<VariantGpuOrder> gpu_order;
};

struct Rankings {
  std::string commit;
  std::vector<RankingGroup> groups;
};

}  // namespace shaderwatch
