// A request body read as JSON (common/json_body.h): what it refuses, named, and what it keeps.
#include <gtest/gtest.h>

#include <string>

#include "common/client_error.h"
#include "common/json_body.h"

namespace {

// The refusal's message, or "accepted".
std::string refusal(const std::string& body) {
  try {
    shaderwatch::parse_json_object(body, 64);
    return "accepted";
  } catch (const shaderwatch::ClientError& e) {
    return e.what();
  }
}

}  // namespace

TEST(JsonBody, ADuplicateKeyIsRefusedAtAnyDepthAndSameKeysInSiblingsAreNot) {
  EXPECT_EQ(refusal(R"({"a": [{"k": 1}, {"k": 2}], "b": {"k": {"k": 3}}})"), "accepted");
  EXPECT_NE(refusal(R"({"a": [{"k": 1}, {"k": 2, "x": 0, "k": 3}]})").find("duplicate key in a JSON object"), std::string::npos);
  EXPECT_NE(refusal(R"({"a": 1, "b": {"c": [[{"d": 1, "d": 1}]]}})").find("duplicate key"), std::string::npos);
  EXPECT_NE(refusal(R"({"a": 1, "a": 1})").find("duplicate key"), std::string::npos);
  // Objects with more keys than are scanned one by one (32), their duplicate first or last.
  std::string wide = "{";
  for (int i = 0; i < 100; ++i) wide.append(i ? "," : "").append("\"k").append(std::to_string(i)).append("\": 0");
  EXPECT_EQ(refusal(wide + "}"), "accepted");
  EXPECT_EQ(refusal("{\"o\": [" + wide + "}, " + wide + "}]}"), "accepted") << "the same keys in sibling objects";
  EXPECT_NE(refusal(wide + ", \"k99\": 1}").find("duplicate key"), std::string::npos);
  EXPECT_NE(refusal(wide + ", \"k0\": 1}").find("duplicate key"), std::string::npos);
}

TEST(JsonBody, WhatIsNotAJsonObjectIsRefusedByName) {
  EXPECT_NE(refusal(R"({"a": [1, 2,]})").find("body is not valid JSON"), std::string::npos);
  EXPECT_NE(refusal(R"({"a": 1} trailing)").find("body is not valid JSON"), std::string::npos);
  EXPECT_NE(refusal("[1, 2]").find("body must be a JSON object"), std::string::npos);
  EXPECT_NE(refusal("").find("empty body"), std::string::npos);
}

TEST(JsonBody, NestingPastTheLimitIsRefusedWhereverItIs) {
  const auto nested = [](int depth, const char* open, const char* close) {
    std::string s = R"({"a": )";
    for (int i = 1; i < depth; ++i) s += open;
    s += "1";
    for (int i = 1; i < depth; ++i) s += close;
    return s + "}";
  };
  EXPECT_EQ(refusal(nested(64, "[", "]")), "accepted") << "64 levels: the object and 63 arrays";
  EXPECT_EQ(refusal(nested(65, "[", "]")), "JSON nested deeper than 64 levels");
  EXPECT_EQ(refusal(nested(65, R"({"k": )", "}")), "JSON nested deeper than 64 levels");
  // Deep and unterminated: refused at the limit, long before the end.
  EXPECT_EQ(refusal(R"({"a": )" + std::string(1000000, '[')), "JSON nested deeper than 64 levels");
  // Brackets inside strings are text.
  EXPECT_EQ(refusal(R"({"a": ")" + std::string(200, '[') + R"("})"), "accepted");
}

TEST(JsonBody, ValuesAreKeptAsSent) {
  const auto j = shaderwatch::parse_json_object(R"({"i": -3, "u": 18446744073709551615, "f": 0.5, "s": "x\u00e9", "n": null,)"
                                                R"( "b": true, "a": [{}, []]})", 64);
  EXPECT_EQ(j["i"].get<long>(), -3);
  EXPECT_EQ(j["u"].get<unsigned long>(), 18446744073709551615ul);
  EXPECT_DOUBLE_EQ(j["f"].get<double>(), 0.5);
  EXPECT_EQ(j["s"].get<std::string>(), "x\xC3\xA9");
  EXPECT_TRUE(j["n"].is_null());
  EXPECT_TRUE(j["b"].get<bool>());
  EXPECT_EQ(j["a"].size(), 2u);
  // An array of many objects (the shape of a benchmark document's rows) is read whole.
  std::string body = R"({"rows": [)";
  for (int i = 0; i < 2000; ++i) body.append(i ? R"(,{"k":)" : R"({"k":)").append(std::to_string(i)).append("}");
  body.append("]}");
  const auto many = shaderwatch::parse_json_object(body, 64);
  ASSERT_EQ(many["rows"].size(), 2000u);
  EXPECT_EQ(many["rows"][1999]["k"].get<int>(), 1999);
}

// Reliability II, finding 2: the tree nlohmann builds took up to 17 times the body (tiny objects); it is bounded to
// 8 times, counted as it is built, and a body past that is refused before its tree is whole.
TEST(JsonBody, ABodyWhoseTreeWouldTakeTooMuchMemoryIsRefused) {
  std::string tiny = R"({"rows": [)";
  for (int i = 0; i < 200000; ++i) tiny.append(i ? R"(,{"a":1})" : R"({"a":1})");
  tiny.append("]}");
  try {
    shaderwatch::parse_json_object(tiny, 64);
    FAIL() << "accepted";
  } catch (const shaderwatch::ClientError& e) {
    EXPECT_EQ(e.status, 413);
    EXPECT_NE(std::string(e.what()).find("8 times its size"), std::string::npos) << e.what();
  }
  // The same number of values as one long string each is what a benchmark document looks like: kept.
  std::string rows = R"({"rows": [)";
  for (int i = 0; i < 20000; ++i)
    rows.append(i ? "," : "").append(R"({"name": "lum/sequential_256/1920x1080/hot", "real_time": 1234.5, "label": "spirv:7ee3f9057fc10a53"})");
  rows.append("]}");
  EXPECT_EQ(shaderwatch::parse_json_object(rows, 64)["rows"].size(), 20000u);
}
