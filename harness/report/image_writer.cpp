#include "report/image_writer.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "suite/kernel_run.h"
#include "postfx.h"
#include "families/postfx/postfx_check.h"
#include "families/postfx/postfx_family.h"

namespace shaderwatch {

namespace {

struct Rgb8 {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> pixels;  // RGB, row-major
};

uint8_t srgb8(double linear) {  // display encoding of a [0, 1] linear value
  const double c = std::clamp(linear, 0.0, 1.0);
  const double s = c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055;
  return static_cast<uint8_t>(std::lround(s * 255));
}

void write_png(const std::string& path, const Rgb8& image) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!file) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) throw std::runtime_error("libpng could not start writing " + path);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("libpng failed writing " + path);
  }
  png_init_io(png, file.get());
  png_set_IHDR(png, info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (uint32_t y = 0; y < image.height; ++y) {
    png_write_row(png, const_cast<png_bytep>(&image.pixels[uint64_t{y} * image.width * 3]));
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
}

std::vector<float> run_kernel(Device& device, ShaderCompiler& compiler, const std::string& name, const Problem& problem) {
  const KernelSpec& spec = find_kernel(name);
  KernelRun run(device, compiler, spec, problem);
  device.submit_and_wait([&](VkCommandBuffer cmd) {
    run.record_poison(cmd);
    run.record(cmd);
  });
  const CheckResult o = run.check();  // a picture of a wrong answer would mislead: check it first
  if (o.status != CheckStatus::Pass) throw std::runtime_error(name + " failed its check: " + o.message + " " + o.first_failure);
  return run.writes_image() ? run.output_pixels() : std::vector<float>{};
}

// encode: apply the sRGB curve (not for Hejl-Burgess-Dawson, whose fit already includes the display gamma).
Rgb8 to_display(const std::vector<float>& out, uint32_t width, uint32_t height, bool yxy, bool encode) {
  auto to8 = [&](double v) { return encode ? srgb8(v) : static_cast<uint8_t>(std::lround(255 * std::clamp(v, 0.0, 1.0))); };
  Rgb8 image{width, height, std::vector<uint8_t>(uint64_t{width} * height * 3)};
  for (uint64_t i = 0; i < uint64_t{width} * height; ++i) {
    reference::Vec3<double> c{out[i * 4], out[i * 4 + 1], out[i * 4 + 2]};
    if (yxy) c = reference::yxy_to_rgb(c);
    image.pixels[i * 3] = to8(c.a);
    image.pixels[i * 3 + 1] = to8(c.b);
    image.pixels[i * 3 + 2] = to8(c.c);
  }
  return image;
}

}  // namespace

std::vector<std::string> write_images(Device& device, ShaderCompiler& compiler, const std::string& dir, uint32_t width,
                                      uint32_t height) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  const Problem problem = make_postfx_problem(InputKind::HdrTest, width, height, 1);
  std::vector<std::string> written;
  std::vector<std::pair<std::string, Rgb8>> sheet;
  for (const auto& spec : catalog()) {
    if (spec.name.rfind("postfx/tonemap_", 0) != 0) continue;
    const std::string op = spec.name.substr(std::string("postfx/tonemap_").size());
    const auto out = run_kernel(device, compiler, spec.name, problem);
    Rgb8 image = to_display(out, width, height, spec.stage == PostfxStage::ToneMapY, op != "hejl_burgess_dawson");
    const std::string path = dir + "/tonemap_" + op + ".png";
    write_png(path, image);
    written.push_back(path);
    sheet.emplace_back(op, std::move(image));
  }
  // Contact sheet: two rows of operators, a 4-pixel gap between them.
  const uint32_t columns = static_cast<uint32_t>((sheet.size() + 1) / 2), gap = 4;
  Rgb8 contact{columns * (width + gap) - gap, 2 * height + gap, {}};
  contact.pixels.assign(uint64_t{contact.width} * contact.height * 3, 40);
  std::ofstream legend(dir + "/contact_sheet.txt");
  for (size_t k = 0; k < sheet.size(); ++k) {
    const uint32_t ox = static_cast<uint32_t>(k % columns) * (width + gap), oy = static_cast<uint32_t>(k / columns) * (height + gap);
    for (uint32_t y = 0; y < height; ++y) {
      std::copy_n(&sheet[k].second.pixels[uint64_t{y} * width * 3], width * 3,
                  &contact.pixels[(uint64_t{oy + y} * contact.width + ox) * 3]);
    }
    legend << "row " << k / columns + 1 << ", column " << k % columns + 1 << ": " << sheet[k].first << "\n";
  }
  write_png(dir + "/contact_sheet.png", contact);
  written.push_back(dir + "/contact_sheet.png");
  written.push_back(dir + "/contact_sheet.txt");

  // Circle of confusion: near in red, far in green, brightness by size (saturating at 32 pixels).
  const auto coc = run_kernel(device, compiler, "postfx/coc", problem);
  Rgb8 coc_image{width, height, std::vector<uint8_t>(uint64_t{width} * height * 3, 0)};
  for (uint64_t i = 0; i < uint64_t{width} * height; ++i) {
    const double c = coc[i * 4];
    coc_image.pixels[i * 3 + (c < 0 ? 0 : 1)] = static_cast<uint8_t>(std::lround(255 * std::min(1.0, std::fabs(c) / 32)));
  }
  write_png(dir + "/coc.png", coc_image);
  written.push_back(dir + "/coc.png");

  // Depth of field: the input and the composite, both Reinhard-tone-mapped (exposure key / Lavg) for display.
  const auto& dof = find_kernel("postfx/dof_composite");
  const float exposure = postfx_params(problem).exposure;
  auto displayed = [&](std::vector<float> pixels) {
    for (uint64_t i = 0; i < pixels.size(); ++i) {
      if (i % 4 != 3) pixels[i] = pixels[i] * exposure / (1 + pixels[i] * exposure);
    }
    return to_display(pixels, width, height, false, true);
  };
  for (const auto& [file, pixels] : {std::pair{"dof_input.png", postfx_input(dof, problem)},
                                     std::pair{"dof_composite.png", run_kernel(device, compiler, dof.name, problem)}}) {
    write_png(dir + "/" + file, displayed(pixels));
    written.push_back(dir + "/" + file);
  }
  return written;
}

}  // namespace shaderwatch
