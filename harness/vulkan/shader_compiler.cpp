#include "vulkan/shader_compiler.h"

#include <glslang/MachineIndependent/localintermediate.h>
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <memory>
#include <set>
#include <stdexcept>

#include "shaderwatch/result_contract.h"
#include "vulkan/embedded_kernels.h"
#include "vulkan/spirv_module.h"

namespace shaderwatch {

namespace {

struct SourceDirectory {
  std::mutex mutex;
  std::string path;                            // empty: the embedded sources
  std::map<std::string, std::string> read;     // files read from it or from a pack, kept for the process's life
  std::map<std::string, std::string> packs;    // a pack's name -> its directory
};

// Reads `path` into `text`; false where it cannot be read.
bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

SourceDirectory& source_directory() {
  static SourceDirectory d;
  return d;
}

}  // namespace

void use_kernel_sources_from(const std::string& directory) {
  SourceDirectory& d = source_directory();
  const std::lock_guard lock(d.mutex);
  d.path = directory;
  d.read.clear();
}

void add_pack_sources(const std::string& pack, const std::string& directory) {
  SourceDirectory& d = source_directory();
  const std::lock_guard lock(d.mutex);
  d.packs[pack] = directory;
  // Files read under the name before are another directory's.
  for (auto it = d.read.begin(); it != d.read.end();) it = it->first.rfind(pack + "/", 0) == 0 ? d.read.erase(it) : std::next(it);
}

std::string included_source(const std::string& header, const std::string& includer) {
  const std::string pack = pack_of_source(includer);
  if (pack.empty()) return header;
  try {
    kernel_source(pack + "/" + header);
    return pack + "/" + header;
  } catch (const std::invalid_argument&) {
    return header;
  }
}

std::string pack_of_source(const std::string& file) {
  const auto slash = file.find('/');
  if (slash == std::string::npos) return "";
  SourceDirectory& d = source_directory();
  const std::lock_guard lock(d.mutex);
  const std::string pack = file.substr(0, slash);
  return d.packs.count(pack) ? pack : "";
}

std::string source_path(const std::string& file) {
  const std::string pack = pack_of_source(file);
  if (pack.empty()) return file;
  SourceDirectory& d = source_directory();
  const std::lock_guard lock(d.mutex);
  std::string dir = d.packs.at(pack);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + file.substr(pack.size());
}

const std::string& kernel_source(const std::string& file) {
  SourceDirectory& d = source_directory();
  {
    const std::lock_guard lock(d.mutex);
    if (auto it = d.read.find(file); it != d.read.end()) return it->second;
    if (const auto slash = file.find('/'); slash != std::string::npos && d.packs.count(file.substr(0, slash))) {
      const std::string name = file.substr(slash + 1);
      // A file of the pack's own directory: an include cannot reach outside it.
      if (name.empty() || name.find('/') != std::string::npos || name[0] == '.')
        throw std::invalid_argument("no kernel source named '" + file + "': a pack's shaders are files of its directory");
      std::string text;
      if (!read_file(d.packs.at(file.substr(0, slash)) + "/" + name, text))
        throw std::invalid_argument("no kernel source named '" + name + "' in " + d.packs.at(file.substr(0, slash)));
      return d.read.emplace(file, std::move(text)).first->second;
    }
    if (!d.path.empty()) {
      // Plain file names only: an include cannot reach outside the directory.
      if (file.find('/') != std::string::npos || file.empty() || file[0] == '.')
        throw std::invalid_argument("no kernel source named '" + file + "' in " + d.path);
      std::string text;
      if (!read_file(d.path + "/" + file, text)) throw std::invalid_argument("no kernel source named '" + file + "' in " + d.path);
      return d.read.emplace(file, std::move(text)).first->second;
    }
  }
  static const std::map<std::string, std::string> sources = [] {
    std::map<std::string, std::string> m;
    for (const auto& k : embedded_kernels()) m.emplace(k.name, k.source);
    return m;
  }();
  const auto it = sources.find(file);
  if (it == sources.end()) throw std::invalid_argument("no kernel source named '" + file + "' is embedded");
  return it->second;
}

std::vector<std::string> kernel_source_names() {
  std::vector<std::string> names;
  for (const auto& k : embedded_kernels()) names.emplace_back(k.name);
  return names;
}

namespace {

// Serves `#include "x.glsl"` from the embedded sources, as glslangValidator -I kernels does at build time; in a pack's
// file, from the pack's directory first.
class EmbeddedIncluder : public glslang::TShader::Includer {
 public:
  IncludeResult* includeLocal(const char* header, const char* includer, size_t) override {
    const std::string name = included_source(header, includer);
    try {
      const std::string& text = kernel_source(name);
      return new IncludeResult(name, text.data(), text.size(), nullptr);
    } catch (const std::invalid_argument&) {
      return nullptr;  // glslang reports the missing include with its line
    }
  }
  IncludeResult* includeSystem(const char* header, const char* from, size_t depth) override {
    return includeLocal(header, from, depth);
  }
  void releaseInclude(IncludeResult* result) override { delete result; }
};

std::string describe(const std::string& file, const Defines& defines, const std::string& entry) {
  std::string s = file;
  if (!entry.empty()) s += " -e " + entry;
  for (const auto& [k, v] : defines) s += " -D" + k + "=" + v;
  return s;
}

// What the linked program uses: its storage buffers of set 0 by binding, anything else as unbindable (the harness binds
// storage buffers of set 0 only), its workgroup size.
ShaderInterface reflect(glslang::TProgram& program) {
  ShaderInterface out;
  program.buildReflection(EShReflectionDefault);
  std::set<uint32_t> bindings, writable;
  auto set_of = [](const glslang::TObjectReflection& r) {
    return r.getType() && r.getType()->getQualifier().hasSet() ? r.getType()->getQualifier().layoutSet : 0u;
  };
  // glslang lists HLSL's structured buffers among the uniform blocks: a block is a storage buffer by its qualifier.
  auto block = [&](const glslang::TObjectReflection& b) {
    const bool storage = b.getType() && b.getType()->getQualifier().storage == glslang::EvqBuffer;
    if (storage && b.getBinding() >= 0 && set_of(b) == 0) {
      bindings.insert(static_cast<uint32_t>(b.getBinding()));
      if (!b.getType()->getQualifier().isReadOnly()) writable.insert(static_cast<uint32_t>(b.getBinding()));
    } else if (storage) out.unbindable.push_back("storage buffer '" + b.name + "' of set " + std::to_string(set_of(b)));
    else if (b.getBinding() >= 0) out.unbindable.push_back("uniform block '" + b.name + "'");  // push constants have none
  };
  for (int i = 0; i < program.getNumBufferBlocks(); ++i) block(program.getBufferBlock(i));
  for (int i = 0; i < program.getNumUniformBlocks(); ++i) block(program.getUniformBlock(i));
  for (int i = 0; i < program.getNumUniformVariables(); ++i) {
    const glslang::TObjectReflection& u = program.getUniform(i);
    if (u.getType() && u.getType()->getBasicType() == glslang::EbtSampler) out.unbindable.push_back("image or sampler '" + u.name + "'");
  }
  out.bindings.assign(bindings.begin(), bindings.end());
  out.writable.assign(writable.begin(), writable.end());
  for (int d = 0; d < 3; ++d) out.local_size[d] = program.getLocalSize(d);
  return out;
}

// The VkSubgroupFeatureFlags a module's OpCapability GroupNonUniform* declare: capabilities 61 (basic) to 68 (quad)
// are the feature bits 0x1 to 0x80 in the same order.
uint32_t subgroup_features(const std::vector<uint32_t>& spirv) {
  constexpr uint32_t kOpCapability = 17, kGroupNonUniform = 61, kGroupNonUniformQuad = 68;
  uint32_t bits = 0;
  for_each_instruction(spirv, [&](uint32_t opcode, size_t at, uint32_t words) {
    if (opcode == kOpCapability && words >= 2 && spirv[at + 1] >= kGroupNonUniform && spirv[at + 1] <= kGroupNonUniformQuad)
      bits |= 1u << (spirv[at + 1] - kGroupNonUniform);
  });
  return bits;
}

}  // namespace

ShaderCompiler::ShaderCompiler(Defines every_shader) : every_shader_(std::move(every_shader)) {
  glslang::InitializeProcess();
}
ShaderCompiler::~ShaderCompiler() { glslang::FinalizeProcess(); }


bool ShaderCompiler::is_hlsl(const std::string& file) { return file.ends_with(".hlsl"); }

ShaderStage ShaderCompiler::stage_of(const std::string& file) {
  auto ends = [&](const char* ext) { return file.ends_with(ext); };
  if (ends(".comp") || ends(".hlsl")) return ShaderStage::Compute;
  if (ends(".vert")) return ShaderStage::Vertex;
  if (ends(".frag")) return ShaderStage::Fragment;
  throw std::invalid_argument("shader '" + file + "' has no known stage extension (.comp, .vert, .frag, .hlsl)");
}

const std::vector<uint32_t>& ShaderCompiler::compile(const std::string& file, const Defines& defines,
                                                     const std::string& entry) {
  std::lock_guard lock(mutex_);
  return compiled(file, defines, entry).spirv;
}

const ShaderInterface& ShaderCompiler::interface_of(const ShaderRef& shader) {
  std::lock_guard lock(mutex_);
  return compiled(shader.file, shader.defines, shader.entry).interface;
}

const ShaderCompiler::Compiled& ShaderCompiler::compiled(const std::string& file, const Defines& kernel_defines,
                                                         const std::string& entry) {
  Defines defines = kernel_defines;
  defines.insert(defines.end(), every_shader_.begin(), every_shader_.end());
  const auto key = std::make_tuple(file, defines, entry);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const bool hlsl = is_hlsl(file);
  if (hlsl && entry.empty()) throw std::invalid_argument("HLSL shader " + file + " needs its entry function named");

  const EShLanguage language = [&] {
    switch (stage_of(file)) {
      case ShaderStage::Vertex: return EShLangVertex;
      case ShaderStage::Fragment: return EShLangFragment;
      default: return EShLangCompute;
    }
  }();
  std::string preamble;
  for (const auto& [k, v] : defines) preamble += "#define " + k + " " + v + "\n";

  const std::string& source = kernel_source(file);
  const char* text = source.c_str();
  const char* name = file.c_str();
  glslang::TShader shader(language);
  shader.setStringsWithLengthsAndNames(&text, nullptr, &name, 1);
  shader.setPreamble(preamble.c_str());
  // The SPIR-V entry point is main either way (the pipelines name it); HLSL's source function is renamed to it.
  shader.setEntryPoint("main");
  if (hlsl) shader.setSourceEntryPoint(entry.c_str());
  shader.setEnvInput(hlsl ? glslang::EShSourceHlsl : glslang::EShSourceGlsl, language, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_3);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_6);
  EmbeddedIncluder includer;
  const auto messages =
      static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules | (hlsl ? EShMsgReadHlsl | EShMsgHlslOffsets : 0));
  if (!shader.parse(GetDefaultResources(), hlsl ? 100 : 460, false, messages, includer)) {
    throw std::runtime_error("shader " + describe(file, defines, entry) + " does not compile:\n" + shader.getInfoLog());
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    throw std::runtime_error("shader " + describe(file, defines, entry) + " does not link:\n" + program.getInfoLog());
  }
  // glslang compiles an HLSL file whose entry function it cannot find into a module with no entry point, silently.
  if (hlsl && program.getIntermediate(language)->getNumEntryPoints() == 0)
    throw std::runtime_error("shader " + describe(file, defines, entry) + " has no function named '" + entry +
                             "' to be its entry point");
  Compiled out;
  glslang::SpvOptions options;
  options.validate = true;
  glslang::GlslangToSpv(*program.getIntermediate(language), out.spirv, &options);
  out.interface = reflect(program);
  out.interface.subgroup_features = subgroup_features(out.spirv);
  return cache_.emplace(key, std::move(out)).first->second;
}

std::string ShaderCompiler::hash(const std::vector<uint32_t>& spirv) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t word : spirv) {
    for (int b = 0; b < 4; ++b) {
      h ^= (word >> (8 * b)) & 0xFF;
      h *= 0x100000001b3ull;
    }
  }
  static_assert(contract::kSpirvHashDigits == 16, "the hash is 16 hex digits, as the server reads it");
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace shaderwatch
