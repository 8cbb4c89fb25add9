#include "shaderwatch/device_split.h"

#include <set>
#include <stdexcept>
#include <utility>

#include <shaderwatch/result_contract.h>

namespace shaderwatch::upload {

using nlohmann::ordered_json;
namespace contract = shaderwatch::contract;

namespace {

// A row's device: the /dev<N> its run name ends with (an aggregate's name is the run name + "_mean").
std::string run_name_of(const ordered_json& row) {
  for (const char* key : {"run_name", "name"}) {
    if (row.is_object() && row.contains(key) && row[key].is_string()) return row[key].get<std::string>();
  }
  return "";
}

// Device N's context: its own keys as sw_<name>, the shared ones (seed, revision, host) as they are.
ordered_json device_context(const ordered_json& context, const std::string& index) {
  const std::string prefix = contract::device_context_prefix(index);
  ordered_json ctx = ordered_json::object();
  for (const auto& [key, value] : context.items()) {
    if (key.starts_with(prefix)) ctx[std::string(contract::kContextPrefix) + key.substr(prefix.size())] = value;
    else if (contract::device_index_of_key(key).empty()) ctx[key] = value;
  }
  return ctx;
}

}  // namespace

ordered_json parse_benchmark_document(const std::string& text) {
  ordered_json doc;
  try {
    doc = ordered_json::parse(text);
  } catch (const ordered_json::exception& e) {
    throw std::invalid_argument(std::string("benchmark file is not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) throw std::invalid_argument("benchmark file is not a JSON object");
  return doc;
}

bool document_dated(const nlohmann::ordered_json& document) {
  const auto context = document.find("context");
  return context != document.end() && context->is_object() && context->contains("date");
}

namespace {

struct DeviceDocument {
  std::string run_id_suffix;
  ordered_json document;  // in the order it was written
};

std::vector<DeviceDocument> split_document_by_device(const ordered_json& doc) {
  // Devices by index, in numeric order: "dev2" before "dev10".
  std::set<std::pair<std::size_t, std::string>> devices;
  const ordered_json context = doc.contains("context") && doc["context"].is_object() ? doc["context"] : ordered_json::object();
  for (const auto& [key, value] : context.items()) {
    const auto index = contract::device_index_of_key(key);
    if (!index.empty()) devices.insert({index.size(), std::string(index)});
  }
  if (devices.empty()) return {{"", doc}};
  const ordered_json benchmarks =
      doc.contains("benchmarks") && doc["benchmarks"].is_array() ? doc["benchmarks"] : ordered_json::array();
  std::vector<DeviceDocument> parts;
  std::vector<bool> assigned(benchmarks.size(), false);
  for (const auto& [digits, index] : devices) {
    const std::string suffix = std::string(contract::kDeviceNameSuffix) + index;
    ordered_json part = doc;
    part["context"] = device_context(context, index);
    ordered_json rows = ordered_json::array();
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
      const std::string run_name = run_name_of(benchmarks[i]);
      if (!run_name.ends_with(suffix)) continue;
      assigned[i] = true;
      const std::string plain = run_name.substr(0, run_name.size() - suffix.size());
      ordered_json row = benchmarks[i];
      if (row.contains("run_name")) row["run_name"] = plain;
      const std::string name = row.value("name", "");
      if (name.starts_with(run_name)) row["name"] = plain + name.substr(run_name.size());
      rows.push_back(std::move(row));
    }
    part["benchmarks"] = std::move(rows);
    // What was compiled, per kernel: this device's entries, under their plain names.
    if (doc.contains(contract::kCompiledSection) && doc[contract::kCompiledSection].is_object()) {
      ordered_json compiled = ordered_json::object();
      for (const auto& [kernel, entry] : doc[contract::kCompiledSection].items())
        if (kernel.ends_with(suffix)) compiled[kernel.substr(0, kernel.size() - suffix.size())] = entry;
      part[contract::kCompiledSection] = std::move(compiled);
    }
    parts.push_back({"-dev" + index, std::move(part)});
  }
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    if (!assigned[i])
      throw std::invalid_argument("benchmark '" + run_name_of(benchmarks[i]) +
                                  "' names none of the document's devices (its name should end in /dev<N>)");
  }
  return parts;
}

}  // namespace

std::vector<DevicePart> split_by_device(const std::string& benchmark_json) {
  auto documents = split_document_by_device(parse_benchmark_document(benchmark_json));
  // One device: the text as it came, unparsed and unprinted.
  if (documents.size() == 1 && documents[0].run_id_suffix.empty()) return {{"", benchmark_json}};
  std::vector<DevicePart> parts;
  for (auto& d : documents) parts.push_back({d.run_id_suffix, d.document.dump()});
  return parts;
}

}  // namespace shaderwatch::upload
