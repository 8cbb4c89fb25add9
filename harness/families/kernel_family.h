#pragma once
// A kernel family as one unit: everything the generic harness (inputs, KernelRun, AnswerCheck, the check and
// benchmark suites, the terminal report) asks of a family is in its KernelFamily, defined in the family's
// folder (families/luminance/luminance_family.cpp, ...) and found through kernel_family(). Each of its
// methods (catalog.h's Method) is one KernelMethod (kernel_method.h) that records a run and checks it, in
// its own file of the folder; the family's `method` table finds it. A new method is its dispatch plan
// (kernels/method_plans.cpp), its KernelMethod's check (its file, in harness/CMakeLists.txt), one row in its
// family's table, its Method value and catalog entries. A
// new family is its folder (its methods and KernelFamily) and its files in harness/CMakeLists.txt, its input
// generator (its <family>_inputs.cpp, drawing on inputs/inputs.h's sampler), its reference (reference/), its
// Family value and catalog entries, and one line each in kernel_families() (kernel_family.cpp) and below.
#include <string_view>
#include <vector>

#include "catalog.h"
#include "families/kernel_method.h"
#include "families/picture.h"
#include "inputs/inputs.h"

namespace shaderwatch {

// One input of the --check suite: a kind of data at a size.
struct CheckInput {
  InputKind kind;
  SizeSpec size;
};

struct KernelFamily {
  Family id;
  std::string_view name;          // its catalog names' prefix: "lum" of "lum/subgroup_add_256"
  std::string_view display_name;  // for people (the terminal report): "post-processing"
  SizeKind size;                  // an image (WxH) or a count (N): how its sizes are written, which --sizes it runs
  InputKind benchmark_input;      // what the benchmark times it on
  Problem (*make_problem)(InputKind kind, const SizeSpec& size, uint64_t seed);
  // The version of what make_problem makes: up by one whenever its output changes (input_identity below).
  int generator_version;
  // What its kernels read where that is not the problem's data as is (post-processing: the image in the
  // kernel's pixel space, and its parameters); KernelRun uploads it and the check gets it. nullptr: the data.
  DerivedInput (*derive_input)(const KernelSpec& spec, const Problem& problem);
  // Which of its kernels read the same derived input (the same number: one upload serves them, families/kernel_input.h).
  // nullptr: all of them (the data as is).
  int (*input_variant)(const KernelSpec& spec);
  // Which of its kernels expect the same output from the same derived input (the same key: the benchmark suite
  // makes their reference once, check/shared_references.h). nullptr: each kernel its own.
  std::string (*reference_key)(const KernelSpec& spec);
  // What fills the guard zone after each of its kernels' input (inputs.h, GuardFill). nullptr: NaN for all.
  GuardFill (*input_guard)(const KernelSpec& spec);
  // Its methods: the object that records and checks each (its table); throws std::logic_error for another
  // family's method.
  const KernelMethod& (*method)(Method id);
  // Host time its check's reference takes per item, as an order of magnitude (ns): within a size the benchmark
  // starts the costliest families first, so that the other families' sampling overlaps their checks (at 8K the
  // post-processing references take minutes of CPU time; started last, the suite waited for free checkers).
  double check_ns_per_item;
  // Its --check cases, in the order they run (each case's seed follows from its place).
  std::vector<CheckInput> (*check_inputs)();
  // What --write-images draws of its kernels (families/picture.h). nullptr: nothing.
  PictureSet (*pictures)() = nullptr;
};

// A benchmark's input beyond its size and seed: its kind and its family generator's version, "hdr-test@1". The
// same SPIR-V timed on another scene is another measurement (the DoF composite at 4K on an H200 went from 2.47 to
// 2.98 ms when its test image changed), so a generator's version goes up whenever its output does
// (tests/harness_test.cpp, Inputs.*, holds each generator's checksum and fails until then).
std::string input_identity(Family family, InputKind kind);
// A problem's, as results record it: its generator's identity, or for a file "file:frame.f32@9c1e5a07".
std::string input_identity(const Problem& problem);
// What a kernel reads for `kind` at `size`: its family's generator's problem, or for InputKind::File its pack's file
// (KernelSpec::input_file; throws std::invalid_argument where it cannot be read at that size).
Problem kernel_problem(const KernelSpec& spec, InputKind kind, const SizeSpec& size, uint64_t seed);

// Every family, in Family's order: the --check suite runs their cases in this order.
const std::vector<const KernelFamily*>& kernel_families();
const KernelFamily& kernel_family(Family id);
// The method that runs and checks a catalog entry: its family's for its Method.
const KernelMethod& kernel_method(const KernelSpec& spec);
// A run's answer check: its method's check of `problem`, over the run's shape. `input`: the family's derive_input.
std::unique_ptr<AnswerCheck> make_answer_check(const KernelSpec& spec, const Problem& problem, const RunShape& shape,
                                               DerivedInput input = {});

// Each family's definition, in its folder.
const KernelFamily& luminance_family();
const KernelFamily& boids_family();
const KernelFamily& postfx_family();

}  // namespace shaderwatch
