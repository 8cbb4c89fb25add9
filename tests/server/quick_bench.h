// The document a real `shaderwatch-bench --quick` run on lavapipe writes, for tests that post what the bench says.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../run_command.h"
#include "test_util.h"

namespace swt {

// The kernels matching `filter` at `sizes` (320x180 by default; seed 5); a failed test (and null) where the bench did
// not exit 0.
inline nlohmann::json quick_bench_document(const TempDir& dir, const std::string& filter,
                                           const std::string& sizes = "320x180") {
  const std::string out = dir.file("quick.json");
  const auto r = run_command(cat(SHADERWATCH_BENCH, " --quick --filter '", filter, "' --sizes ", sizes, " --seed 5",
                                 " --benchmark_out=", out, " 2>&1"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0) return nullptr;
  std::ifstream in(out);
  return nlohmann::json::parse(in);
}

}  // namespace swt
