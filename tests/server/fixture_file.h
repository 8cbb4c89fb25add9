// A JSON file from tests/server/fixtures (SW_FIXTURES), parsed; a .gz one is read through zlib.
#pragma once

#include <zlib.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace swt {

inline nlohmann::json read_fixture(const std::string& name) {
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0) {
    gzFile f = gzopen((std::string(SW_FIXTURES) + "/" + name).c_str(), "rb");
    if (!f) throw std::runtime_error("cannot open fixture " + name);
    std::string text;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
    const bool ok = n == 0;
    gzclose(f);
    if (!ok) throw std::runtime_error("cannot decompress fixture " + name);
    return nlohmann::json::parse(text);
  }
  std::ifstream in(std::string(SW_FIXTURES) + "/" + name);
  if (!in) throw std::runtime_error("cannot open fixture " + name);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

}  // namespace swt
