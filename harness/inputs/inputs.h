#pragma once
// Test inputs: the kinds of data (seeded random values and adversarial sets), the sampler every family's generator
// draws from, a problem and its size. Each family's generator is in its folder (families/<family>/<family>_inputs.cpp).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catalog.h"

namespace shaderwatch {

enum class InputKind {
  Random,     // luminance: HDR-like positive values; boids: uniform in [-100, 100]
  Exponents,  // magnitudes spanning 2^-20 .. 2^20 (a naive float sum loses the small ones)
  Zeros,      // all zero
  Signed,     // negative and positive values, cancelling sums (for kernels that allow negatives)
  Negative,   // boids: every component negative, in [-100, -0.01] (min/max and sign bugs show on any count)
  HdrTest,    // post-processing test image: gradients over 0..10^4, a sun, black pixels, saturated primaries
  Whole,      // nonzero whole numbers, at most 255 and sum|x| <= 2^24 per component: every float sum of them is exact
  File,       // a kernel pack's own data, read from a file (problem_from_file)
};
std::string input_kind_name(InputKind kind);

// What fills the guard zone after a kernel's input (families/kernel_input.h), chosen per kernel by its family so that a
// read past the end changes the answer. NaN spreads through arithmetic, but GPU min and max return the other
// operand and every comparison with NaN is false, so a kernel that takes a min or max of what it reads, or
// compares it, gets large finite values of both signs instead: past any min, max or threshold, and far past any
// sum's bound.
enum class GuardFill { NaN, Extremes };

// What a family's size is: an image, written WxH, or a count of items, written N (families/kernel_family.h).
enum class SizeKind { Image, Count };
// A family's: boids are a count, the others images.
SizeKind family_size_kind(Family family);

struct Problem {
  Family family;
  InputKind kind;
  uint64_t seed;
  uint32_t width = 0, height = 0;  // an image (luminance, post-processing)
  uint64_t count = 0;              // a count (boids)
  std::vector<float> data;         // RGBA per pixel, or xyz_ per boid
  SizeKind size_kind = SizeKind::Image;  // its family's (KernelFamily::size), set by the generator
  std::string source;               // a File problem's: "frame.f32@9c1e5a07", its file's name and content hash
  uint64_t items() const;           // pixels or boids, by the family's SizeKind
  std::string size_string() const;  // "1920x1080" or "4096"
  bool has_negative() const { return kind == InputKind::Signed; }
};

// One value of `kind` (not HdrTest, an image: make_postfx_problem), positive only where asked (Signed never is);
// Whole draws magnitudes up to `whole_limit`.
float sample_value(InputKind kind, std::mt19937_64& rng, bool positive_only, int whole_limit);
// The largest magnitude of InputKind::Whole for a problem of `items`: sum|x| stays within 2^24.
int whole_number_limit(uint64_t items);

struct SizeSpec {
  uint32_t width = 0, height = 0;
  uint64_t count = 0;
  uint64_t items() const { return count ? count : uint64_t{width} * height; }  // boids, else pixels
};
// "WxH" for an image, "N" for a count; throws std::invalid_argument naming the bad text.
SizeSpec parse_size(SizeKind kind, const std::string& text);
// The guard zone uploaded after a kernel's input (families/kernel_input.h): an image's is 128 of its rows (tiles are
// at most 64 a side), at least 4096 vec4; a count's, 4096 vec4.
uint64_t input_guard_bytes(SizeKind kind, uint32_t width);

// A problem of `family` (whose size is of `kind`) at `size` read from `path`: raw little-endian float32, four per
// item (RGBA per pixel, x y z _ per position), row by row, exactly size.items() * 16 bytes. Throws
// std::invalid_argument naming the file and what is wrong (missing, another length).
Problem problem_from_file(Family family, SizeKind kind, const SizeSpec& size, const std::string& path);
std::string size_text(SizeKind kind, const SizeSpec& size);  // "1920x1080" or "4096"

}  // namespace shaderwatch
