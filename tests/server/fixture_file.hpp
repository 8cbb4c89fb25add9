// A JSON file from tests/server/fixtures (SW_FIXTURES), parsed.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace swt {

inline nlohmann::json read_fixture(const std::string& name) {
  std::ifstream in(std::string(SW_FIXTURES) + "/" + name);
  if (!in) throw std::runtime_error("cannot open fixture " + name);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

}  // namespace swt
