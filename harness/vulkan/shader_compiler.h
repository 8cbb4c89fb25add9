#pragma once
// GLSL (and a kernel pack's HLSL) -> SPIR-V at run time with the glslang library, from the kernel sources embedded
// in the binary (so a staged binary needs no source files beside it) or a pack's directory. Results are cached per
// (source, defines, entry point), with what the shader declares (its reflection), which a pack's manifest is
// checked against.
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "catalog.h"

namespace shaderwatch {

enum class ShaderStage { Compute, Vertex, Fragment };

// The source of kernels/<file>: the one embedded in the binary, or the file in the directory given to
// use_kernel_sources_from. Throws std::invalid_argument for an unknown name.
const std::string& kernel_source(const std::string& file);
// From now on, kernel sources come from `directory` (a copy of kernels/, edited: a shader under work, a
// mutant) instead of the binary; "" goes back to the embedded ones. Call it before compiling anything.
void use_kernel_sources_from(const std::string& directory);
std::vector<std::string> kernel_source_names();
// From now on, "<pack>/<file>" names <directory>/<file> (a kernel pack's shaders); an #include in such a file finds
// the pack's files first. Call it before compiling anything.
void add_pack_sources(const std::string& pack, const std::string& directory);
// The pack a source name is of ("seeds_hlsl" of "seeds_hlsl/reduce.hlsl"), or "" for kernels/' own.
std::string pack_of_source(const std::string& file);
// Where a pack's source is on disk: its directory as add_pack_sources was given it, then the file
// ("packs/mine/reduce.hlsl" of "mine/reduce.hlsl"); kernels/' own file names as they are.
std::string source_path(const std::string& file);
// The source `#include "header"` in `includer` names: a pack's own file where the pack has it, else kernels/' file.
std::string included_source(const std::string& header, const std::string& includer);

// What a compiled shader uses, by glslang's reflection and its SPIR-V's capabilities.
struct ShaderInterface {
  std::vector<uint32_t> bindings;  // every storage buffer binding of set 0 it uses, sorted
  std::vector<uint32_t> writable;  // those of them not declared readonly (HLSL: RW buffers), sorted
  // Resources the harness cannot bind (another set, a uniform buffer, an image): "uniform block 'Params'".
  std::vector<std::string> unbindable;
  std::array<uint32_t, 3> local_size{1, 1, 1};
  uint32_t subgroup_features = 0;  // VkSubgroupFeatureFlags of the GroupNonUniform* capabilities it declares
};

class ShaderCompiler {
 public:
  // every_shader: defines added to every compile (--check --race: RACE_DELAYS, kernels/race_delay.glsl).
  explicit ShaderCompiler(Defines every_shader = {});
  ~ShaderCompiler();
  // Throws std::runtime_error with glslang's log (file, defines, line) when the shader does not compile. `entry`:
  // an HLSL shader's entry function (GLSL's is main).
  const std::vector<uint32_t>& compile(const std::string& file, const Defines& defines, const std::string& entry = "");
  const std::vector<uint32_t>& compile(const ShaderRef& shader) { return compile(shader.file, shader.defines, shader.entry); }
  const ShaderInterface& interface_of(const ShaderRef& shader);

  // By extension: .comp .vert .frag, and .hlsl (a compute shader in HLSL).
  static ShaderStage stage_of(const std::string& file);
  static bool is_hlsl(const std::string& file);
  // FNV-1a 64 of the SPIR-V words, hex: results carry it so a changed shader shows in the history.
  static std::string hash(const std::vector<uint32_t>& spirv);

 private:
  const Defines every_shader_;
  std::mutex mutex_;
  struct Compiled {
    std::vector<uint32_t> spirv;
    ShaderInterface interface;
  };
  const Compiled& compiled(const std::string& file, const Defines& defines, const std::string& entry);
  std::map<std::tuple<std::string, Defines, std::string>, Compiled> cache_;
};

}  // namespace shaderwatch
