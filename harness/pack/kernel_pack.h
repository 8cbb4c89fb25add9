#pragma once
// A kernel pack: a directory with a manifest (pack.toml, or pack.json), shaders in GLSL (.comp) or HLSL (.hlsl), and
// the expectations of its kernels on some drivers where it has them (expectations.json),
// read into catalog entries (kernels/catalog.h) that the bench runs, checks, times and reports like its own. Each
// kernel is plain compute dispatches written as data (kernels/dispatch_plan.h: its buffers, passes, bindings,
// workgroups and push words, sizes as formulas of the run), checked by one of the catalog's own checks with an
// error bound the manifest states as a rounding count. Everything is verified on load, before any GPU work: the
// manifest's keys and values, every shader compiles, and every pass binds exactly the bindings its shader declares
// (glslang's reflection). README.md, "Add your own kernel", is the manifest's reference.
#include <string>
#include <vector>

#include "catalog.h"
#include "inputs/inputs.h"
#include "vulkan/shader_compiler.h"
#include "vulkan/vulkan_context.h"

namespace shaderwatch {

struct KernelPack {
  std::string name;       // its kernels' names are "<name>/<kernel>"
  std::string directory;
  std::string manifest;   // the manifest's path
  std::string expectations;  // its expectations.json (the format of kernels/expectations.json), "" where none
  std::vector<KernelSpec> kernels;
};

// Reads the pack in `directory`, compiling its shaders with `compiler`; throws ManifestError (pack/manifest_table.h)
// naming the file, line and key of what is wrong, or the compiler's message with the shader's file and line.
KernelPack read_kernel_pack(const std::string& directory, ShaderCompiler& compiler);

// What a pack's check is called in its manifest, and what it makes of the kernel.
struct PackCheck {
  std::string name;       // "luminance tile sums"
  Family family;          // whose inputs and references
  Method method;          // whose check
  std::string operation;  // what it computes, unless the manifest says
  std::string output;     // what the kernel must write, for --help and errors
  // The output bytes the check reads (nullptr: a reference shader's, its `compare` floats).
  uint64_t (*reads)(uint64_t items, uint64_t groups);
  bool sums = true;       // its bound is the manifest's rounding count (a pixel map's is the reference's, per pixel)
};
const std::vector<PackCheck>& pack_checks();

}  // namespace shaderwatch
