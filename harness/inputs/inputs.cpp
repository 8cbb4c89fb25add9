#include "inputs/inputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <random>
#include <stdexcept>

namespace shaderwatch {

std::string input_kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::Random: return "random";
    case InputKind::Exponents: return "exponents";
    case InputKind::Zeros: return "zeros";
    case InputKind::Signed: return "signed";
    case InputKind::Negative: return "negative";
    case InputKind::HdrTest: return "hdr-test";
    case InputKind::Whole: return "whole";
    case InputKind::File: return "file";
  }
  return "?";
}

SizeKind family_size_kind(Family family) { return family == Family::Boids ? SizeKind::Count : SizeKind::Image; }

uint64_t Problem::items() const { return size_kind == SizeKind::Count ? count : uint64_t{width} * height; }

std::string Problem::size_string() const { return size_text(size_kind, {width, height, count}); }

int whole_number_limit(uint64_t items) {
  return static_cast<int>(std::clamp<uint64_t>((uint64_t{1} << 24) / items, 1, 255));
}

float sample_value(InputKind kind, std::mt19937_64& rng, bool positive_only, int whole_limit) {
  switch (kind) {
    case InputKind::Random: {
      if (positive_only) return std::exponential_distribution<float>(1.0f)(rng);  // HDR-ish, mean 1
      return std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng);
    }
    case InputKind::Exponents: {
      const int e = std::uniform_int_distribution<int>(-20, 20)(rng);
      const float m = std::uniform_real_distribution<float>(1.0f, 2.0f)(rng);
      const float v = std::ldexp(m, e);
      return (positive_only || (rng() & 1)) ? v : -v;
    }
    case InputKind::Zeros: return 0.0f;
    case InputKind::Signed: return std::uniform_real_distribution<float>(-8.0f, 8.0f)(rng);
    case InputKind::Negative: return -std::uniform_real_distribution<float>(0.01f, 100.0f)(rng);
    case InputKind::HdrTest: break;  // an image, not a distribution: make_postfx_problem
    case InputKind::File: break;     // read, not drawn: problem_from_file
    case InputKind::Whole: {
      const float v = static_cast<float>(std::uniform_int_distribution<int>(1, whole_limit)(rng));
      return (positive_only || (rng() & 1)) ? v : -v;
    }
  }
  return 0.0f;
}

uint64_t input_guard_bytes(SizeKind kind, uint32_t width) {
  return 16 * (kind == SizeKind::Image ? std::max<uint64_t>(4096, uint64_t{width} * 128) : 4096);
}

Problem problem_from_file(Family family, SizeKind kind, const SizeSpec& size, const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::invalid_argument("input file " + path + " cannot be read");
  const uint64_t bytes = static_cast<uint64_t>(in.tellg()), want = size.items() * 16;
  if (bytes != want)
    throw std::invalid_argument("input file " + path + " has " + std::to_string(bytes) + " bytes; at " + size_text(kind, size) +
                                " it needs " + std::to_string(want) + " (four little-endian float32 per " +
                                (kind == SizeKind::Image ? "pixel, row by row)" : "item)"));
  Problem p{.family = family, .kind = InputKind::File, .seed = 0, .width = size.width, .height = size.height,
            .count = size.count, .data = std::vector<float>(size.items() * 4), .size_kind = kind};
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(p.data.data()), static_cast<std::streamsize>(want)))
    throw std::invalid_argument("input file " + path + " could not be read to its end");
  // Its identity in results: another file's data is another measurement. FNV-1a over its bytes.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const unsigned char b : std::string_view(reinterpret_cast<const char*>(p.data.data()), want)) hash = (hash ^ b) * 0x100000001b3ull;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(hash >> 32));
  p.source = std::filesystem::path(path).filename().string() + "@" + hex;
  return p;
}

SizeSpec parse_size(SizeKind kind, const std::string& text) {
  auto number = [&](const std::string& s) -> uint64_t {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 10) {
      throw std::invalid_argument("bad size '" + text + "': expected " +
                                  (kind == SizeKind::Image ? "WIDTHxHEIGHT, e.g. 1920x1080" : "a count, e.g. 4096"));
    }
    return std::stoull(s);
  };
  SizeSpec spec;
  if (kind == SizeKind::Image) {
    const auto x = text.find('x');
    if (x == std::string::npos) number("");  // throws with the message
    const uint64_t w = number(text.substr(0, x)), h = number(text.substr(x + 1));
    if (w > 65536 || h > 65536) throw std::invalid_argument("bad size '" + text + "': at most 65536 per side");
    spec.width = static_cast<uint32_t>(w);
    spec.height = static_cast<uint32_t>(h);
  } else {
    spec.count = number(text);
  }
  return spec;
}

std::string size_text(SizeKind kind, const SizeSpec& size) {
  return kind == SizeKind::Image ? std::to_string(size.width) + "x" + std::to_string(size.height) : std::to_string(size.count);
}

}  // namespace shaderwatch
