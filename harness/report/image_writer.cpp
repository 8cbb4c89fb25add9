#include "report/image_writer.h"

#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "families/kernel_family.h"
#include "suite/kernel_run.h"

namespace shaderwatch {

namespace {

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

std::vector<float> run_kernel(Device& device, ShaderCompiler& compiler, const KernelSpec& spec, const Problem& problem) {
  KernelRun run(device, compiler, spec, problem);
  device.submit_and_wait([&](VkCommandBuffer cmd) {
    run.record_poison(cmd);
    run.record(cmd);
  });
  const CheckResult o = run.check();  // a picture of a wrong answer would mislead: check it first
  if (o.status != CheckStatus::Pass) throw std::runtime_error(spec.name + " failed its check: " + o.message + " " + o.first_failure);
  if (!run.writes_image()) throw std::logic_error(spec.name + " writes no image to draw");
  return run.output_pixels();
}

// Every labelled picture side by side in two rows, a 4-pixel gap between them, and their labels in a legend.
std::vector<std::string> write_contact_sheet(const std::string& dir, const std::vector<std::pair<std::string, Rgb8>>& sheet) {
  const uint32_t width = sheet.front().second.width, height = sheet.front().second.height;
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
  return {dir + "/contact_sheet.png", dir + "/contact_sheet.txt"};
}

}  // namespace

std::vector<std::string> write_images(Device& device, ShaderCompiler& compiler, const std::string& dir, uint32_t width,
                                      uint32_t height) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  std::vector<std::string> written;
  for (const KernelFamily* family : kernel_families()) {
    if (!family->pictures) continue;
    const PictureSet set = family->pictures();
    const Problem problem = family->make_problem(set.input, {width, height, 0}, 1);
    std::vector<std::pair<std::string, Rgb8>> sheet;
    size_t sheet_left = 0;
    for (const Picture& p : set.pictures) sheet_left += !p.sheet_label.empty();
    for (const Picture& p : set.pictures) {
      const KernelSpec& spec = find_kernel(p.kernel);
      const Rgb8 image = p.draw(p.of_input ? *family->derive_input(spec, problem).data : run_kernel(device, compiler, spec, problem),
                                problem);
      write_png(dir + "/" + p.file, image);
      written.push_back(dir + "/" + p.file);
      if (p.sheet_label.empty()) continue;
      sheet.emplace_back(p.sheet_label, image);
      if (--sheet_left == 0)
        for (auto& f : write_contact_sheet(dir, sheet)) written.push_back(std::move(f));
    }
  }
  return written;
}

}  // namespace shaderwatch
