// shaderwatch-bench: runs the kernel catalog on a Vulkan device, checks every result against the CPU
// reference (--check), and lists devices and kernels.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <random>
#include <regex>

#include "check_suite.h"

using namespace shaderwatch;

namespace {

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

void list_devices(const Instance& instance) {
  for (const auto& d : instance.devices()) {
    std::cout << d.index << ": " << d.name << "\n"
              << "   type " << d.type_name() << ", vendor " << hex(d.vendor_id) << ", device " << hex(d.device_id)
              << "\n   driver " << d.driver_name << " (" << d.driver_info << "), version "
              << d.driver_version_string() << "\n   Vulkan " << d.api_version_string() << ", subgroup size "
              << d.subgroup_size;
    if (d.max_subgroup_size) std::cout << " (" << d.min_subgroup_size << "-" << d.max_subgroup_size << ")";
    std::cout << "\n";
  }
}

void list_kernels() {
  for (const auto& k : catalog()) {
    std::cout << k.name << "  " << k.description << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "shaderwatch-bench: runs GPU compute kernels (luminance and boids reductions) on a Vulkan device and checks "
      "every result against a CPU reference."};
  bool do_list_devices = false, do_list_kernels = false, do_check = false, validation = false;
  std::string device_selector, filter = ".*";
  uint64_t seed = 0;
  app.add_flag("--list-devices", do_list_devices, "List every Vulkan device (index, name, type, driver, API, subgroup)");
  app.add_flag("--list-kernels", do_list_kernels, "List every catalog kernel, its stable name first");
  app.add_flag("--check", do_check,
               "Run every kernel at the test sizes and inputs, print the correctness table; exit 1 on any "
               "unexpected failure");
  app.add_option("--device", device_selector,
                 "Device index or name substring (default: first discrete GPU, else integrated, else CPU)");
  app.add_option("--seed", seed, "Seed for the random inputs (default: random, printed)");
  app.add_option("--filter", filter, "Only kernels whose name matches this regular expression");
  app.add_flag("--validation", validation, "Enable the Khronos validation layer; any message fails the run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!do_list_devices && !do_list_kernels && !do_check) {
    std::cerr << "nothing to do: give --check, --list-devices or --list-kernels (see --help)\n";
    return 2;
  }
  std::regex filter_re;
  try {
    filter_re = std::regex(filter);
  } catch (const std::regex_error& e) {
    std::cerr << "--filter '" << filter << "' is not a valid regular expression: " << e.what() << "\n";
    return 2;
  }
  if (do_list_kernels) list_kernels();
  if (!do_list_devices && !do_check) return 0;

  try {
    Instance instance(validation);
    if (do_list_devices) list_devices(instance);
    if (!do_check) return 0;
    Device device(instance, instance.select(device_selector));
    if (seed == 0) seed = std::random_device{}() | 1;
    std::cout << "device: " << device.info().name << " (" << device.info().driver_name << " "
              << device.info().driver_version_string() << ", Vulkan " << device.info().api_version_string()
              << ", subgroup " << device.info().subgroup_size << ")\nseed: " << seed << "\n\n";
    ShaderCompiler compiler;
    print_check_header(std::cout);
    const auto summary = run_check_suite(device, compiler, filter_re, seed, default_check_cases(),
                                         [](const CheckRow& row) { print_check_row(std::cout, row); });
    print_check_footer(std::cout, summary);
    const auto messages = instance.validation_log().take();
    for (const auto& m : messages) std::cerr << m << "\n";
    if (summary.rows.empty()) {
      std::cerr << "--filter '" << filter << "' matched no kernel\n";
      return 2;
    }
    return summary.unexpected_failures() == 0 && messages.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "shaderwatch-bench: " << e.what() << "\n";
    return 1;
  }
}
