#include "vulkan/shader_compiler.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <memory>
#include <stdexcept>

#include "vulkan/embedded_kernels.h"

namespace shaderwatch {

namespace {

struct SourceDirectory {
  std::mutex mutex;
  std::string path;                            // empty: the embedded sources
  std::map<std::string, std::string> read;     // files read from it, kept for the process's life
};

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

const std::string& kernel_source(const std::string& file) {
  SourceDirectory& d = source_directory();
  {
    const std::lock_guard lock(d.mutex);
    if (!d.path.empty()) {
      if (auto it = d.read.find(file); it != d.read.end()) return it->second;
      // Plain file names only: an include cannot reach outside the directory.
      if (file.find('/') != std::string::npos || file.empty() || file[0] == '.')
        throw std::invalid_argument("no kernel source named '" + file + "' in " + d.path);
      std::ifstream in(d.path + "/" + file, std::ios::binary);
      if (!in) throw std::invalid_argument("no kernel source named '" + file + "' in " + d.path);
      std::ostringstream text;
      text << in.rdbuf();
      return d.read.emplace(file, text.str()).first->second;
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

// Serves `#include "x.glsl"` from the embedded sources, as glslangValidator -I kernels does at build time.
class EmbeddedIncluder : public glslang::TShader::Includer {
 public:
  IncludeResult* includeLocal(const char* header, const char*, size_t) override {
    try {
      const std::string& text = kernel_source(header);
      return new IncludeResult(header, text.data(), text.size(), nullptr);
    } catch (const std::invalid_argument&) {
      return nullptr;  // glslang reports the missing include with its line
    }
  }
  IncludeResult* includeSystem(const char* header, const char* from, size_t depth) override {
    return includeLocal(header, from, depth);
  }
  void releaseInclude(IncludeResult* result) override { delete result; }
};

std::string describe(const std::string& file, const Defines& defines) {
  std::string s = file;
  for (const auto& [k, v] : defines) s += " -D" + k + "=" + v;
  return s;
}

}  // namespace

ShaderCompiler::ShaderCompiler(Defines every_shader) : every_shader_(std::move(every_shader)) {
  glslang::InitializeProcess();
}
ShaderCompiler::~ShaderCompiler() { glslang::FinalizeProcess(); }

ShaderStage ShaderCompiler::stage_of(const std::string& file) {
  auto ends = [&](const char* ext) {
    const std::string e(ext);
    return file.size() >= e.size() && file.compare(file.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".comp")) return ShaderStage::Compute;
  if (ends(".vert")) return ShaderStage::Vertex;
  if (ends(".frag")) return ShaderStage::Fragment;
  throw std::invalid_argument("shader '" + file + "' has no known stage extension (.comp, .vert, .frag)");
}

const std::vector<uint32_t>& ShaderCompiler::compile(const std::string& file, const Defines& kernel_defines) {
  std::lock_guard lock(mutex_);
  Defines defines = kernel_defines;
  defines.insert(defines.end(), every_shader_.begin(), every_shader_.end());
  const auto key = std::make_pair(file, defines);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;

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
  shader.setEntryPoint("main");
  shader.setEnvInput(glslang::EShSourceGlsl, language, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_3);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_6);
  EmbeddedIncluder includer;
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 460, false, messages, includer)) {
    throw std::runtime_error("shader " + describe(file, defines) + " does not compile:\n" + shader.getInfoLog());
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    throw std::runtime_error("shader " + describe(file, defines) + " does not link:\n" + program.getInfoLog());
  }
  std::vector<uint32_t> spirv;
  glslang::SpvOptions options;
  options.validate = true;
  glslang::GlslangToSpv(*program.getIntermediate(language), spirv, &options);
  return cache_.emplace(key, std::move(spirv)).first->second;
}

std::string ShaderCompiler::hash(const std::vector<uint32_t>& spirv) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t word : spirv) {
    for (int b = 0; b < 4; ++b) {
      h ^= (word >> (8 * b)) & 0xFF;
      h *= 0x100000001b3ull;
    }
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace shaderwatch
