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
}

TEST(JsonBody, WhatIsNotAJsonObjectIsRefusedByName) {
  EXPECT_NE(refusal(R"({"a": [1, 2,]})").find("body is not valid JSON"), std::string::npos);
  EXPECT_NE(refusal(R"({"a": 1} trailing)").find("body is not valid JSON"), std::string::npos);
  EXPECT_NE(refusal("[1, 2]").find("body must be a JSON object"), std::string::npos);
  EXPECT_NE(refusal("").find("empty body"), std::string::npos);
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
  for (int i = 0; i < 20000; ++i) body.append(i ? R"(,{"k":)" : R"({"k":)").append(std::to_string(i)).append("}");
  body.append("]}");
  const auto many = shaderwatch::parse_json_object(body, 64);
  ASSERT_EQ(many["rows"].size(), 20000u);
  EXPECT_EQ(many["rows"][19999]["k"].get<int>(), 19999);
}
