#pragma once
// --benchmark_out's JSON as the results server reads it (contract/shaderwatch/result_contract.h), made in memory
// from what Google Benchmark's reporter wrote there (report_benchmarks): every row gets its status and stop reason
// in fields of their own, and each device of the run a document of its rows, its context and what it compiled. Each document is
// written once, to FILE.json or, with several devices, FILE-dev<N>.json beside it (posted as run <run id>-dev<N>),
// and --post sends the same text; nothing is read back.
#include <string>
#include <vector>

#include "report/benchmark_report.h"
#include "suite/benchmark_suite.h"

namespace shaderwatch {

struct ResultDocument {
  std::string path;
  std::string run_id_suffix;  // "" for a run of one device, else "-dev<N>"
  std::string text;           // as written to `path`, and as --post sends it
  bool dated = false;         // its context has a date (the server takes the run's start from it)
};
// The documents of `json_text` (Google Benchmark's JSON for `results`), one per device of `devices` (none: one
// document, its context as Google Benchmark wrote it), each written as above, in device order. A row goes to the
// device its benchmark's result ran on, and each document's context gets its device's keys. Throws
// std::runtime_error naming the file when the text is not that JSON, a row names no benchmark of `results`, or a
// file cannot be written.
std::vector<ResultDocument> write_result_documents(const std::string& path, const std::string& json_text,
                                                   const std::vector<BenchmarkResult>& results,
                                                   const std::vector<RunDevice>& devices);
// --benchmark_out in another format (csv, console): Google Benchmark's text as it is. Throws std::runtime_error
// naming the file when it cannot be written.
void write_out_file(const std::string& path, const std::string& text);

}  // namespace shaderwatch
