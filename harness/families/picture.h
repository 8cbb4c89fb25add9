#pragma once
// What a family draws of its kernels for people (--write-images, report/image_writer.cpp): each picture is a
// kernel's output image, or the input it reads, turned into 8-bit RGB by the family, which knows what its pixels
// mean (a Yxy image, a circle of confusion, HDR colour to tone-map). The writer runs the kernels, checks them and
// writes the PNG files; the family says which and how they look.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "inputs/inputs.h"

namespace shaderwatch {

struct Rgb8 {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> pixels;  // RGB, row-major
};

struct Picture {
  std::string file;         // "tonemap_reinhard.png"
  std::string kernel;       // the catalog kernel it shows
  bool of_input = false;    // the input the kernel reads (its family's derive_input) rather than its output
  std::string sheet_label;  // its place on the contact sheet, under this label; empty: not on it
  std::function<Rgb8(const std::vector<float>& rgba, const Problem& problem)> draw;
};

// A family's pictures, all of one problem of `input` at the size asked for.
struct PictureSet {
  InputKind input = InputKind::HdrTest;
  std::vector<Picture> pictures;
};

}  // namespace shaderwatch
