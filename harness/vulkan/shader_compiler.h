#pragma once
// GLSL -> SPIR-V at run time with the glslang library, from the kernel sources embedded in the binary
// (so a staged binary needs no source files beside it). Results are cached per (stage, source, defines).
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace shaderwatch {

using Defines = std::vector<std::pair<std::string, std::string>>;

enum class ShaderStage { Compute, Vertex, Fragment };

// The source of kernels/<file>: the one embedded in the binary, or the file in the directory given to
// use_kernel_sources_from. Throws std::invalid_argument for an unknown name.
const std::string& kernel_source(const std::string& file);
// From now on, kernel sources come from `directory` (a copy of kernels/, edited: a shader under work, a
// mutant) instead of the binary; "" goes back to the embedded ones. Call it before compiling anything.
void use_kernel_sources_from(const std::string& directory);
std::vector<std::string> kernel_source_names();

class ShaderCompiler {
 public:
  // every_shader: defines added to every compile (--check --race: RACE_DELAYS, kernels/race_delay.glsl).
  explicit ShaderCompiler(Defines every_shader = {});
  ~ShaderCompiler();
  // Throws std::runtime_error with glslang's log (file, defines, line) when the shader does not compile.
  const std::vector<uint32_t>& compile(const std::string& file, const Defines& defines);

  static ShaderStage stage_of(const std::string& file);  // by extension: .comp .vert .frag
  // FNV-1a 64 of the SPIR-V words, hex: results carry it so a changed shader shows in the history.
  static std::string hash(const std::vector<uint32_t>& spirv);

 private:
  const Defines every_shader_;
  std::mutex mutex_;
  std::map<std::pair<std::string, Defines>, std::vector<uint32_t>> cache_;
};

}  // namespace shaderwatch
