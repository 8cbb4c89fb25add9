#include "inputs/inputs.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <thread>

#include "common/parallel_bands.h"

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
  }
  return "?";
}

namespace {
// The version of what each family's generator makes (1: as of 2026-11-26).
int generator_version(Family family) {
  switch (family) {
    case Family::Luminance: return 1;  // make_luminance_problem
    case Family::Boids: return 1;      // make_boids_problem
    case Family::Postfx: return 1;     // make_postfx_problem, its HdrTest image included
  }
  return 0;
}
}  // namespace

std::string input_identity(Family family, InputKind kind) {
  return input_kind_name(kind) + "@" + std::to_string(generator_version(family));
}

uint64_t Problem::items() const { return size_kind == SizeKind::Count ? count : uint64_t{width} * height; }

std::string Problem::size_string() const { return size_text(size_kind, {width, height, count}); }

namespace {
// The largest magnitude of InputKind::Whole for a problem of `items`: sum|x| stays within 2^24.
int whole_number_limit(uint64_t items) {
  return static_cast<int>(std::clamp<uint64_t>((uint64_t{1} << 24) / items, 1, 255));
}

float sample(InputKind kind, std::mt19937_64& rng, bool positive_only, int whole_limit) {
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
    case InputKind::Whole: {
      const float v = static_cast<float>(std::uniform_int_distribution<int>(1, whole_limit)(rng));
      return (positive_only || (rng() & 1)) ? v : -v;
    }
  }
  return 0.0f;
}
}  // namespace

Problem make_luminance_problem(InputKind kind, uint32_t width, uint32_t height, uint64_t seed) {
  if (width == 0 || height == 0) {
    throw std::invalid_argument("empty image " + std::to_string(width) + "x" + std::to_string(height) +
                                ": a luminance reduction needs at least one pixel");
  }
  if (uint64_t{width} * height > (uint64_t{1} << 31)) {
    throw std::invalid_argument("image " + std::to_string(width) + "x" + std::to_string(height) +
                                " has more than 2^31 pixels, past 32-bit pixel indices");
  }
  Problem p{Family::Luminance, kind, seed, width, height, 0, {}};
  p.data.resize(uint64_t{width} * height * 4);
  std::mt19937_64 rng(seed);
  const int whole_limit = whole_number_limit(uint64_t{width} * height);
  for (uint64_t i = 0; i < p.data.size(); i += 4) {
    for (int c = 0; c < 3; ++c) p.data[i + c] = sample(kind, rng, kind != InputKind::Signed, whole_limit);
    p.data[i + 3] = 1.0f;  // alpha: weight 0 in the luminance
  }
  return p;
}

Problem make_boids_problem(InputKind kind, uint64_t count, uint64_t seed) {
  if (count == 0) throw std::invalid_argument("no boids (count 0): an average needs at least one position");
  if (count > (uint64_t{1} << 28)) throw std::invalid_argument("more than 2^28 boids: " + std::to_string(count));
  Problem p{Family::Boids, kind, seed, 0, 0, count, {}, SizeKind::Count};
  p.data.resize(count * 4);
  std::mt19937_64 rng(seed);
  const int whole_limit = whole_number_limit(count);
  for (uint64_t i = 0; i < count; ++i) {
    for (int c = 0; c < 3; ++c) p.data[i * 4 + c] = sample(kind, rng, false, whole_limit);
    p.data[i * 4 + 3] = 0.0f;
  }
  return p;
}

Problem make_postfx_problem(InputKind kind, uint32_t width, uint32_t height, uint64_t seed) {
  Problem p = make_luminance_problem(kind == InputKind::HdrTest ? InputKind::Zeros : InputKind::Random, width, height, seed);
  p.family = Family::Postfx;
  p.kind = kind;
  if (kind != InputKind::HdrTest) return p;
  // Left to right, luminance climbs from 0 to 10^4 on a log scale; the hue turns from top to bottom. A band
  // of black rows, three saturated primaries and a sun of 10^5 in the top right corner. Each pixel a function of
  // its place alone, so bands of rows are made on threads of their own (at 8K: seconds on one core, which the
  // benchmark's first post-processing kernel waited for).
  const uint32_t threads = std::max(1u, std::min(std::thread::hardware_concurrency(), height / 64 + 1));
  parallel_bands(height, threads, [&](unsigned, uint64_t y0, uint64_t y1) {
    for (uint32_t y = y0; y < y1; ++y) {
      for (uint32_t x = 0; x < width; ++x) {
        const double u = width > 1 ? double(x) / (width - 1) : 0.0, v = height > 1 ? double(y) / (height - 1) : 0.0;
        const double level = std::pow(1e4 + 1.0, u) - 1.0;
        double rgb[3] = {level * (0.5 + 0.5 * std::cos(6.2832 * v)), level * (0.5 + 0.5 * std::cos(6.2832 * (v - 0.33))),
                         level * (0.5 + 0.5 * std::cos(6.2832 * (v - 0.67)))};
        if (v >= 0.45 && v < 0.5) rgb[0] = rgb[1] = rgb[2] = 0.0;
        if (v >= 0.6 && v < 0.7) {
          const int primary = static_cast<int>(3 * u) % 3;
          for (int c = 0; c < 3; ++c) rgb[c] = c == primary ? 50.0 : 0.0;
        }
        const double dx = u - 0.85, dy = v - 0.15;
        if (dx * dx + dy * dy < 0.003) rgb[0] = rgb[1] = rgb[2] = 1e5;
        float* px = &p.data[(uint64_t{y} * width + x) * 4];
        for (int c = 0; c < 3; ++c) px[c] = static_cast<float>(rgb[c]);
      }
    }
  });
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
