// The ingest adapter: a POST body (the run wrapper around a Google Benchmark JSON document) into the
// rows and run metadata the store keeps, every field validated (ClientError names what is wrong).
// Pure parsing, no storage: tests/server/ingest_parse_test.cpp runs it on fixture documents.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <shaderwatch/result_contract.h>

#include "ingest/compiled_parse.h"

namespace shaderwatch {

struct Row {
  std::size_t idx = 0;
  std::string series_name, run_type, aggregate_name, aggregate_unit, label, error_message, time_unit;
  nlohmann::json counters = nlohmann::json::object();  // user counters: name -> JSON number
  std::int64_t repetition_index = 0, repetitions = 0, threads = 1, iterations = 0;
  std::optional<double> real_ns, cpu_ns;
  bool error = false;
  contract::RowStatus status = contract::RowStatus::Pass;
  bool status_given = false;  // the row carried contract::kStatusField (format 1 may not: format_upgrade.h)
  double check_retries = 0;   // its contract::kCheckRetriesCounter, read with the counters (format 1's flakes)
  std::string stop;           // contract::kStopField: why its measurement stopped (format 3 on; empty: not given)
  // Its kernel's SPIR-V hash: from the document's compiled section (a measured row's; an error row names none, as
  // its label never did), before format 3 from its label where the section has no entry (format_upgrade.cpp).
  std::string spirv;
};

struct Parsed {
  std::string run_key, commit, branch, merge_base, runner, job_url, started_at;
  std::int64_t started_ms = 0;
  std::string vendor_id, device_id, device_name, device_type, driver_id, driver_name, driver_info,
      driver_version, api_version, harness_revision, device_uuid, driver_uuid, subgroup_size,
      host_name, context;
  std::vector<Row> rows;
  std::vector<CompiledKernel> compiled;  // what the driver made of each kernel, where the bench said
  int format_version = 1;                // the document's (contract::kFormatVersion); the current one once parsed
  std::string sha;
};

// Parses and validates a body, a document of an older format brought up to the current one (format_upgrade.h);
// `sha` identifies its content (idempotent reposts). Throws ClientError.
Parsed parse_body(std::string_view body, std::size_t max_nesting);

}  // namespace shaderwatch
