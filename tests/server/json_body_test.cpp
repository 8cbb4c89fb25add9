// A request body read as JSON (common/json_body.h): what it refuses, named, and what it keeps.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// Issue 55, item 5: a large body's rows are read one at a time. The array at the path is handed out element by
// element and left empty; the same key elsewhere, and everything else, is kept as parse_json_object keeps it.
TEST(JsonBody, TheStreamedArraysElementsAreHandedOutInOrderAndNotKept) {
  std::vector<nlohmann::json> seen;
  const auto keep = [&](const nlohmann::json& e, std::size_t i) {
    EXPECT_EQ(i, seen.size());
    seen.push_back(e);
  };
  const std::vector<std::string> path = {"benchmark", "benchmarks"};
  const auto j = shaderwatch::parse_json_object_streaming(
      R"({"benchmarks": [1], "benchmark": {"context": {"benchmarks": [2]}, "benchmarks": [{"a": [3, {"b": 4}]}, 5,)"
      R"( [6, [7]], "x", {}], "after": [8]}, "z": {"benchmarks": [9]}})",
      64, path, keep);
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0], nlohmann::json::parse(R"({"a": [3, {"b": 4}]})"));
  EXPECT_EQ(seen[1], 5);
  EXPECT_EQ(seen[2], nlohmann::json::parse("[6, [7]]"));
  EXPECT_EQ(seen[3], "x");
  EXPECT_EQ(seen[4], nlohmann::json::object());
  EXPECT_EQ(j, nlohmann::json::parse(R"({"benchmarks": [1], "benchmark": {"context": {"benchmarks": [2]},)"
                                     R"( "benchmarks": [], "after": [8]}, "z": {"benchmarks": [9]}})"));
  // What parse_json_object refuses inside an element is refused the same.
  const auto streamed_refusal = [&](const std::string& body) -> std::string {
    try {
      shaderwatch::parse_json_object_streaming(body, 64, path, [](const nlohmann::json&, std::size_t) {});
      return "accepted";
    } catch (const shaderwatch::ClientError& e) {
      return e.what();
    }
  };
  for (const std::string body : {R"({"benchmark": {"benchmarks": [{"k": 1, "k": 2}]}})",
                                 R"({"benchmark": {"benchmarks": [{"k": 1}, {"k": [1,]}]}})",
                                 R"({"benchmark": {"benchmarks": [{"k": 1}]}, "benchmark": 2})", "[1]", ""})
    EXPECT_EQ(streamed_refusal(body), refusal(body)) << body;
  // An element the caller refuses stops the read.
  std::size_t read = 0;
  EXPECT_THROW(shaderwatch::parse_json_object_streaming(
                   R"({"benchmark": {"benchmarks": [1, 2, 3]}})", 64, path,
                   [&](const nlohmann::json& e, std::size_t) {
                     ++read;
                     if (e == 2) throw shaderwatch::ClientError(400, "two");
                   }),
               shaderwatch::ClientError);
  EXPECT_EQ(read, 2u);
  // Elements are not held: 200,000 tiny rows, whose tree parse_json_object refuses (413), stream through.
  std::string tiny = R"({"benchmark": {"benchmarks": [)";
  for (int i = 0; i < 200000; ++i) tiny.append(i ? R"(,{"a":1})" : R"({"a":1})");
  tiny.append("]}}");
  EXPECT_NE(refusal(tiny).find("8 times its size"), std::string::npos);
  std::size_t n = 0;
  shaderwatch::parse_json_object_streaming(tiny, 64, path, [&](const nlohmann::json&, std::size_t) { ++n; });
  EXPECT_EQ(n, 200000u);
}
