// Series keys: Google Benchmark's measurement decoration goes, what was measured stays.
#include <gtest/gtest.h>

#include "shaderwatch/benchmark_name.hpp"

using shaderwatch::series_key;

TEST(SeriesKey, DropsMeasurementDecoration) {
  EXPECT_EQ(series_key("lum/subgroup_add_256/3840x2160/cold/iterations:1/manual_time"), "lum/subgroup_add_256/3840x2160/cold");
  EXPECT_EQ(series_key("lum/subgroup_add_256/3840x2160/cold/repeats:10/iterations:1/manual_time"),
            "lum/subgroup_add_256/3840x2160/cold");
  EXPECT_EQ(series_key("BM_x/8/min_time:0.500/min_warmup_time:0.100/real_time"), "BM_x/8");
  EXPECT_EQ(series_key("BM_x/process_time/repeats:3"), "BM_x");
}

TEST(SeriesKey, KeepsWhatWasMeasured) {
  EXPECT_EQ(series_key("lum/subgroup_add_256/3840x2160/cold"), "lum/subgroup_add_256/3840x2160/cold");
  EXPECT_EQ(series_key("BM_memcpy/64/threads:4"), "BM_memcpy/64/threads:4");
  EXPECT_EQ(series_key("BM_x/iterations:"), "BM_x/iterations:");  // no count: not the decoration
  EXPECT_EQ(series_key("manual_time"), "manual_time");           // a benchmark may be called that
  EXPECT_EQ(series_key("a//b"), "a//b");
  EXPECT_EQ(series_key(""), "");
}
