#include "ingest/compiled_parse.h"

#include <algorithm>
#include <array>

#include <shaderwatch/result_contract.h>

#include "common/client_error.h"
#include "common/sha256.h"

using nlohmann::json;

namespace shaderwatch {

namespace {

// Bounds on what one document may say it compiled; the bench writes ~50 kernels of 1-2 pipelines, one
// executable each, five statistics.
constexpr std::size_t kMaxKernels = 10000;
constexpr std::size_t kMaxExecutables = 16;
constexpr std::size_t kMaxStatistics = 256;
constexpr std::size_t kMaxName = 256;

const json& field_of(const json& obj, const char* key, const std::string& path) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw ClientError(400, "missing required field", path + "." + key);
  return *it;
}

void only_fields(const json& obj, std::initializer_list<const char*> keys, const std::string& path) {
  if (!obj.is_object()) throw ClientError(400, "must be an object", path);
  for (const auto& [key, value] : obj.items())
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; }))
      throw ClientError(400, "unknown field", path + "." + key);
}

std::string text_of(const json& obj, const char* key, const std::string& path, std::size_t max_len) {
  const json& v = field_of(obj, key, path);
  if (!v.is_string()) throw ClientError(400, "must be a string", path + "." + key);
  const auto& s = v.get_ref<const std::string&>();
  if (s.empty()) throw ClientError(400, "must not be empty", path + "." + key);
  if (s.size() > max_len) throw ClientError(400, "longer than " + std::to_string(max_len) + " characters", path + "." + key);
  if (!std::all_of(s.begin(), s.end(), [](unsigned char c) { return c >= 32 && c < 127; }))
    throw ClientError(400, "must be printable ASCII", path + "." + key);
  return s;
}

const json& array_of(const json& obj, const char* key, const std::string& path, std::size_t max_size) {
  const json& v = field_of(obj, key, path);
  if (!v.is_array()) throw ClientError(400, "must be an array", path + "." + key);
  if (v.size() > max_size) throw ClientError(400, "more than " + std::to_string(max_size) + " entries", path + "." + key);
  return v;
}

// A statistic's value must be what its format says (VkPipelineExecutableStatisticFormatKHR).
void check_statistic(const json& s, const std::string& path) {
  only_fields(s, {"name", "format", "value"}, path);
  text_of(s, "name", path, kMaxName);
  const std::string format = text_of(s, "format", path, 16);
  const json& value = field_of(s, "value", path);
  bool fits = false;
  if (format == "bool32") fits = value.is_boolean();
  else if (format == "int64") fits = value.is_number_integer();
  else if (format == "uint64") fits = value.is_number_unsigned();
  else if (format == "float64") fits = value.is_number();
  else throw ClientError(400, "must be one of bool32, int64, uint64, float64", path + ".format");
  if (!fits) throw ClientError(400, "is not a " + format + " value", path + ".value");
}

void check_pipelines(const json& pipelines, const std::string& path) {
  for (std::size_t i = 0; i < pipelines.size(); ++i) {
    const std::string pp = path + "[" + std::to_string(i) + "]";
    if (!pipelines[i].is_array()) throw ClientError(400, "must be an array of executables", pp);
    if (pipelines[i].size() > kMaxExecutables)
      throw ClientError(400, "more than " + std::to_string(kMaxExecutables) + " executables", pp);
    for (std::size_t j = 0; j < pipelines[i].size(); ++j) {
      const std::string ep = pp + "[" + std::to_string(j) + "]";
      const json& e = pipelines[i][j];
      only_fields(e, {"executable", "subgroup_size", "statistics"}, ep);
      text_of(e, "executable", ep, kMaxName);
      const json& subgroup = field_of(e, "subgroup_size", ep);
      if (!subgroup.is_number_unsigned() || subgroup.get<std::uint64_t>() > 4096)
        throw ClientError(400, "must be an integer in [0, 4096]", ep + ".subgroup_size");
      const json& statistics = array_of(e, "statistics", ep, kMaxStatistics);
      for (std::size_t k = 0; k < statistics.size(); ++k)
        check_statistic(statistics[k], ep + ".statistics[" + std::to_string(k) + "]");
    }
  }
}

}  // namespace

std::vector<CompiledKernel> parse_compiled_section(const json& doc, int format_version) {
  const auto it = doc.find(contract::kCompiledSection);
  if (it == doc.end()) return {};
  const std::string path = std::string("benchmark.") + contract::kCompiledSection;
  if (!it->is_object()) throw ClientError(400, "must be an object", path);
  if (it->size() > kMaxKernels) throw ClientError(400, "more than " + std::to_string(kMaxKernels) + " kernels", path);
  std::vector<CompiledKernel> out;
  out.reserve(it->size());
  for (const auto& [kernel, entry] : it->items()) {
    const std::string ep = path + "." + kernel.substr(0, kMaxName);
    if (kernel.empty() || kernel.size() > kMaxName) throw ClientError(400, "kernel name must be 1-256 characters", ep);
    if (const auto dev = kernel.rfind(contract::kDeviceNameSuffix);
        dev != std::string::npos && dev + contract::kDeviceNameSuffix.size() < kernel.size() &&
        kernel.find_first_not_of("0123456789", dev + contract::kDeviceNameSuffix.size()) == std::string::npos)
      throw ClientError(400, "a kernel of one of several devices: post the document with shaderwatch-server post or"
                             " shaderwatch-bench --post, which store one run per device", ep);
    only_fields(entry, {"spirv", "input", "operation", contract::kLimitField, "pipelines"}, ep);
    CompiledKernel k;
    k.kernel = kernel;
    k.spirv = text_of(entry, "spirv", ep, contract::kMaxKernelPasses * contract::kSpirvHashDigits);
    k.input = text_of(entry, "input", ep, 128);
    if (format_version >= 3 || entry.contains("operation")) k.operation = text_of(entry, "operation", ep, 128);
    if (format_version >= 4 || entry.contains(contract::kLimitField)) {
      k.limit = text_of(entry, contract::kLimitField, ep, 32);
      if (!contract::limit_from_word(k.limit))
        throw ClientError(400, "'" + k.limit + "' is not a limit (bandwidth, latency, compute)",
                          ep + "." + contract::kLimitField);
    }
    const json& pipelines = array_of(entry, "pipelines", ep, contract::kMaxKernelPasses);
    check_pipelines(pipelines, ep + ".pipelines");
    k.pipelines = pipelines.dump();
    Sha256 h;
    for (const std::string* f : {&k.spirv, &k.input, &k.pipelines}) h.field(*f);
    k.sha = h.hex();
    out.push_back(std::move(k));
  }
  return out;  // nlohmann's objects iterate in key order: sorted by kernel already
}

}  // namespace shaderwatch
