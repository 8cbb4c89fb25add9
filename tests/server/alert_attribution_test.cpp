// An alert's attribution, typed (detection/alert_attribution.h): the stored document it makes, and what readers
// read back of it. No database.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "detection/alert_attribution.h"

using namespace shaderwatch;

TEST(AlertAttribution, AFirstRunsFailureIsItsCauseAndSummaryAlone) {
  const AlertAttribution a{.cause = "neither", .summary = "fails on its first run on this GPU"};
  EXPECT_EQ(stored_text(a), R"({"cause":"neither","summary":"fails on its first run on this GPU"})");
}

TEST(AlertAttribution, TheStoredDocumentHoldsEveryFindingAndMark) {
  AttributionFindings f;
  f.evidence = {"SPIR-V changed"};
  f.compiled = {"aa", "bb", true, std::pair{std::string("CS Register Count 23"), std::string("CS Register Count 25")}, std::nullopt};
  f.commit_changed = true;
  f.commit_before = "c1";
  f.commit_after = "c2";
  f.gpu_siblings = {2, 1, {{"H100", true, 12.5}}};
  f.kernel_siblings = {1, 0, {{"lum/x/1920x1080/hot", false, 0.25}}};
  AlertAttribution a{.cause = "commit", .summary = "the kernel changed", .findings = f};
  a.gate = GateMark{"r7", "previous", 3, 1000, 1500, 50, 10};
  a.noise = NoiseMark{2.5, 1, 2.5, "r6"};
  const auto j = nlohmann::json::parse(stored_text(a));
  EXPECT_EQ(j["evidence_class"], nullptr) << "none decided: null";
  EXPECT_EQ(j["compiled"]["statistics_changed"]["after"], "CS Register Count 25");
  EXPECT_FALSE(j["compiled"].contains("input")) << "the input did not change";
  EXPECT_EQ(j["gpu_siblings"]["detail"][0]["gpu"], "H100");
  EXPECT_EQ(j["kernel_siblings"]["detail"][0]["benchmark"], "lum/x/1920x1080/hot");
  EXPECT_EQ(j["gate"]["runs"], 3);
  EXPECT_FALSE(j.contains("trend"));

  const auto back = read_attribution(stored_text(a));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cause, "commit");
  EXPECT_EQ(back->summary, "the kernel changed");
  ASSERT_TRUE(back->gate && back->noise);
  EXPECT_EQ(back->gate->run, "r7");
  EXPECT_DOUBLE_EQ(back->gate->delta_pct, 50);
  EXPECT_DOUBLE_EQ(back->noise->ratio, 2.5);
  EXPECT_FALSE(back->trend);
  EXPECT_EQ(stored_text(AlertAttribution{back->cause, back->summary, f, back->trend, back->gate, back->noise}),
            stored_text(a)) << "read back and written again, the same document";
}

TEST(AlertAttribution, ADocumentThatIsNotOneIsNoneToItsReaders) {
  EXPECT_FALSE(read_attribution("not json"));
  EXPECT_FALSE(read_attribution("[1, 2]"));
  EXPECT_FALSE(read_attribution(R"({"cause": "neither", "gate": {"runs": "three"}})")) << "a field of another type";
  const auto old = read_attribution(R"({"cause": "driver"})");
  ASSERT_TRUE(old) << "a document without a summary (none is required)";
  EXPECT_EQ(old->summary, "");
}
