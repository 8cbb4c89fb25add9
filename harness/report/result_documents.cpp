#include "report/result_documents.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "report/compiled_section.h"
#include "run/stopping_criterion.h"
#include "shaderwatch/device_split.h"

namespace shaderwatch {

using nlohmann::ordered_json;

namespace {

ordered_json parse_document(const std::string& text, const std::string& path) {
  try {
    return ordered_json::parse(text);
  } catch (const ordered_json::exception& e) {
    throw std::runtime_error("--benchmark_out '" + path + "': not the JSON Google Benchmark writes: " + e.what());
  }
}

// Each row's benchmark, found by its run name, which is the benchmark's name (the reporter wrote clean names).
using ResultOf = std::map<std::string, const BenchmarkResult*, std::less<>>;

const BenchmarkResult& result_of_row(const ordered_json& row, const ResultOf& result_of, const std::string& path) {
  const std::string run_name = row.value("run_name", row.value("name", ""));
  const auto it = result_of.find(run_name);
  if (it == result_of.end())
    throw std::runtime_error("--benchmark_out '" + path + "': row '" + run_name + "' is no benchmark of this run");
  return *it->second;
}

// Every row (repetitions and aggregates) with its benchmark's status and, where it was measured, why its
// measurement stopped.
void add_row_fields(ordered_json& document, const ResultOf& result_of, const std::string& path) {
  if (!document.contains("benchmarks") || !document["benchmarks"].is_array())
    throw std::runtime_error("--benchmark_out '" + path + "' has no benchmarks array");
  for (auto& row : document["benchmarks"]) {
    const BenchmarkResult& r = result_of_row(row, result_of, path);
    row[contract::kStatusField] = contract::row_status_word(row_status(r.outcome.status));
    if (r.error_message.empty()) row[contract::kStopField] = stop_reason_name(r.measurement.stop);
  }
}

// Device `d`'s document: its rows (their benchmarks' results ran on it) under the names without its suffix, its
// context keys, and what it compiled. With one device, the rows are all of them and no name has a suffix.
ordered_json device_document(const ordered_json& document, const ResultOf& result_of, const RunDevice& d,
                             const std::vector<BenchmarkResult>& results, const std::string& path) {
  ordered_json part = document;
  if (!d.suffix.empty()) {
    ordered_json rows = ordered_json::array();
    for (const auto& row : document["benchmarks"]) {
      const BenchmarkResult& r = result_of_row(row, result_of, path);
      if (r.device_suffix != d.suffix) continue;
      const std::string plain = r.name.substr(0, r.name.size() - d.suffix.size());
      ordered_json own = row;
      if (own.contains("run_name")) own["run_name"] = plain;
      const std::string name = own.value("name", "");
      if (name.starts_with(r.name)) own["name"] = plain + name.substr(r.name.size());
      rows.push_back(std::move(own));
    }
    part["benchmarks"] = std::move(rows);
  }
  for (const auto& [key, value] : d.context) part["context"][contract::context_key(key)] = value;
  part[contract::kCompiledSection] = compiled_section(results, d.suffix);
  return part;
}

// FILE.json -> FILE-dev<N>.json, in the same directory.
std::string device_path(const std::string& path, const std::string& suffix) {
  const std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + suffix + p.extension().string())).string();
}

}  // namespace

void write_out_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("--benchmark_out: '" + path + "' cannot be written: " + std::strerror(errno));
}

std::vector<ResultDocument> write_result_documents(const std::string& path, const std::string& json_text,
                                                   const std::vector<BenchmarkResult>& results,
                                                   const std::vector<RunDevice>& devices) {
  ordered_json document = parse_document(json_text, path);
  ResultOf result_of;
  for (const auto& r : results) result_of.emplace(r.name, &r);
  add_row_fields(document, result_of, path);
  const std::vector<RunDevice> one{RunDevice{}};
  std::vector<ResultDocument> written;
  for (const RunDevice& d : devices.empty() ? one : devices) {
    const ordered_json part = device_document(document, result_of, d, results, path);
    // "/dev<N>" ending the names is "-dev<N>" ending the file's stem and the run id.
    std::string suffix = d.suffix;
    if (!suffix.empty()) suffix.front() = '-';
    written.push_back({suffix.empty() ? path : device_path(path, suffix), suffix, part.dump(2) + "\n",
                       upload::document_dated(part)});
    write_out_file(written.back().path, written.back().text);
  }
  // Several devices: FILE.json itself is not written; one a run before left there would read as this run's.
  if (!(written.size() == 1 && written[0].path == path)) {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
  return written;
}

}  // namespace shaderwatch
