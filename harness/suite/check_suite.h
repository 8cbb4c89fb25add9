#pragma once
// The correctness suite: which kernels run on which inputs at which sizes, and the table it prints.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <regex>
#include <string>
#include <vector>

#include "check/check.h"
#include "suite/expectations.h"
#include "inputs/inputs.h"
#include "suite/kernel_run.h"

namespace shaderwatch {

struct CheckCase {
  Family family;
  InputKind kind;
  SizeSpec size;
  std::string kernel;  // "" for every kernel of the family; else this kernel alone (a size from its dispatch, its file)
  std::string why;     // for a kernel's own size: what it makes the loops do
};
// Every family's --check cases (its KernelFamily's check_inputs), family by family in Family's order: for
// images 1080p and sizes that are not multiples of any tile (1921x1079, 17x3, 1x1), boids counts that are not
// multiples of 64 or 256; every input kind at a small size, random at all sizes. Then each kernel's sizes from its
// dispatch on this device (KernelMethod::dispatch_check_sizes), on the family's benchmark input; and a pack kernel's
// own input file (KernelSpec::input_file) at its size.
std::vector<CheckCase> default_check_cases(const DeviceInfo& device);
// The cases of one kernel alone, a line each: "lum/grid_stride_vec4 2048x36 (why)".
void print_dispatch_cases(std::ostream& out, const std::vector<CheckCase>& cases, const std::regex& filter);

struct CheckRow {
  std::string kernel, device, size, input;
  uint64_t seed;
  CheckResult outcome;
};

struct CheckSummary {
  std::vector<CheckRow> rows;
  size_t unexpected_failures() const;
};

// Runs every kernel whose name matches `filter` on every case, judged by `policy` (an entry's skip, its
// expected failure, its flaky reruns); `on_row` sees each row as it completes.
CheckSummary run_check_suite(Device& device, ShaderCompiler& compiler, const std::regex& filter, uint64_t seed,
                             const std::vector<CheckCase>& cases, const CheckPolicy& policy,
                             const std::function<void(const CheckRow&)>& on_row);

void print_check_header(std::ostream& out);
void print_check_row(std::ostream& out, const CheckRow& row);
// Failures in full (kernel, device, size, seed, first wrong element), then the counts.
void print_check_footer(std::ostream& out, const CheckSummary& summary);

}  // namespace shaderwatch
