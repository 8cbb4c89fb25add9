#pragma once
// --benchmark_out's JSON as the results server reads it (contract/shaderwatch/result_contract.h). Google
// Benchmark writes the file; then every row gets its status in a field of its own and, with several
// devices, the document becomes one per device: FILE-dev<N>.json beside FILE.json (which is removed),
// each posted as run <run id>-dev<N>.
#include <string>
#include <vector>

#include "report/benchmark_report.h"

namespace shaderwatch {

struct ResultDocument {
  std::string path;
  std::string run_id_suffix;  // "" for a run of one device, else "-dev<N>"
};
// Rewrites `path` (JSON as Google Benchmark wrote it for `results`) as above; returns the documents in
// device order. Throws std::runtime_error naming the file when it cannot be read, parsed or written, or a
// row names no benchmark of `results`.
std::vector<ResultDocument> finish_result_documents(const std::string& path, const std::vector<BenchmarkResult>& results);

}  // namespace shaderwatch
