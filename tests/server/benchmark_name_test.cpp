// Series keys: Google Benchmark's measurement decoration goes, what was measured stays.
#include <gtest/gtest.h>

#include "ingest/benchmark_name.h"

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

// The name's grammar, read in one place for the store (family, variant, config), the JUnit report
// (classname, name) and the alerts (kernel, config).
TEST(BenchmarkName, SplitsIntoFamilyVariantAndConfig) {
  const auto full = shaderwatch::split_name("lum/sequential_256/1920x1080/cold/dev1");
  EXPECT_EQ(full.family, "lum");
  EXPECT_EQ(full.variant, "sequential_256");
  EXPECT_EQ(full.config, "1920x1080/cold/dev1");
  EXPECT_EQ(full.kernel(), "lum/sequential_256");
  EXPECT_TRUE(full.has_config);
  const auto two = shaderwatch::split_name("BM_Sum/64");
  EXPECT_EQ(two.kernel(), "BM_Sum/64");
  EXPECT_FALSE(two.has_config);
  const auto one = shaderwatch::split_name("BM_Plain");
  EXPECT_EQ(one.kernel(), "BM_Plain");
  EXPECT_EQ(one.variant, "");
  const auto trailing = shaderwatch::split_name("a/b/");
  EXPECT_TRUE(trailing.has_config);
  EXPECT_EQ(trailing.config, "");
}
