#include "vulkan/kernel_sources.h"

#include <algorithm>
#include <regex>
#include <set>
#include <stdexcept>
#include <string_view>

#include "vulkan/embedded_kernels.h"
#include "vulkan/shader_compiler.h"

namespace shaderwatch {
namespace {

// A pack's file from its directory, kernels/' own from the binary.
std::string_view embedded_source(const std::string& file) {
  if (!pack_of_source(file).empty()) return kernel_source(file);
  for (const auto& k : embedded_kernels())
    if (k.name == file) return k.source;
  throw std::runtime_error("kernels/" + file + " is not among the sources embedded in this binary");
}

}  // namespace

std::vector<std::string> kernel_source_files(const KernelSpec& spec) {
  // The same directive the compiler's includer serves (shader_compiler.cpp): #include "file".
  static const std::regex include_line(R"re(^[ \t]*#[ \t]*include[ \t]+"([^"]+)")re", std::regex::multiline);
  std::set<std::string> seen;
  std::vector<std::string> pending;
  for (const auto& shader : spec.shaders) pending.push_back(shader.file);
  // A pack kernel's check runs its reference shader: a change to it is a change to what the kernel is held to.
  if (spec.reference)
    for (const auto& shader : spec.reference->run.shaders) pending.push_back(shader.file);
  while (!pending.empty()) {
    const std::string file = std::move(pending.back());
    pending.pop_back();
    if (!seen.insert(file).second) continue;
    const std::string_view text = embedded_source(file);
    for (std::cregex_iterator it(text.data(), text.data() + text.size(), include_line), end; it != end; ++it)
      pending.push_back(included_source((*it)[1].str(), file));
  }
  return {seen.begin(), seen.end()};
}

}  // namespace shaderwatch
