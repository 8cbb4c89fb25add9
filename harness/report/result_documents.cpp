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

// Every row (repetitions and aggregates) with its benchmark's status and, where it was measured, why its
// measurement stopped; a row is found by its run name, which is the benchmark's name (the reporter wrote clean
// names).
void add_row_fields(ordered_json& document, const std::vector<BenchmarkResult>& results, const std::string& path) {
  std::map<std::string, const BenchmarkResult*, std::less<>> result_of;
  for (const auto& r : results) result_of.emplace(r.name, &r);
  if (!document.contains("benchmarks") || !document["benchmarks"].is_array())
    throw std::runtime_error("--benchmark_out '" + path + "' has no benchmarks array");
  for (auto& row : document["benchmarks"]) {
    const std::string run_name = row.value("run_name", row.value("name", ""));
    const auto it = result_of.find(run_name);
    if (it == result_of.end())
      throw std::runtime_error("--benchmark_out '" + path + "': row '" + run_name + "' is no benchmark of this run");
    const BenchmarkResult& r = *it->second;
    row[contract::kStatusField] = contract::row_status_word(row_status(r.outcome.status));
    if (r.error_message.empty()) row[contract::kStopField] = stop_reason_name(r.measurement.stop);
  }
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
                                                   const std::vector<BenchmarkResult>& results) {
  ordered_json document = parse_document(json_text, path);
  add_row_fields(document, results, path);
  document[contract::kCompiledSection] = compiled_section(results);
  std::vector<upload::DeviceDocument> parts;
  try {
    parts = upload::split_document_by_device(document);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("--benchmark_out '" + path + "': " + e.what());
  }
  std::vector<ResultDocument> written;
  for (const auto& part : parts) {
    written.push_back({part.run_id_suffix.empty() ? path : device_path(path, part.run_id_suffix), part.run_id_suffix,
                       part.document.dump(2) + "\n", upload::document_dated(part.document)});
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
