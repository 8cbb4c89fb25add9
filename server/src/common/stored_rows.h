// A benchmark's rows of one run as stored: packed together, not a table row each (issue 55: 158 bytes a
// repetition as rows). A pack is two parts:
// - its shape: everything but the numbers (each row's kind, names, counts, label, status, error; which numbers
//   each row has). Runs of one suite repeat the same shapes, so a shape is stored once (table row_shapes) and
//   pointed at by every pack that has it;
// - its values: the rows' times and counters, in number_codec.h's few bytes each, one value for a column whose
//   rows all hold the same, nothing for a CPU time equal to the real time, and one byte for up to five aggregate
//   rows' numbers in a row that Google Benchmark's own formula gives from the repetitions (gbench_statistics.h;
//   a time's from their seconds, as it computes them), bit for bit, and a byte for each repetition's rate counter
//   (bytes or items a second) after the benchmark's first.
// unpack_rows gives back every field as posted, bit for bit (tests/server/packed_rows_test.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <shaderwatch/result_contract.h>

namespace shaderwatch {

// One row of a posted document, as the server keeps it.
struct StoredRow {
  std::int64_t idx = 0;                          // its position in the document's benchmarks array
  bool aggregate = false;                        // run_type "aggregate" (else "iteration")
  std::optional<std::string> aggregate_name;
  std::string aggregate_unit;                    // "time", "percentage"; "" where not given
  std::int64_t repetition_index = 0, repetitions = 0, threads = 1, iterations = 0;
  std::optional<double> real_ns, cpu_ns;
  std::string time_unit, label;
  bool error = false;
  std::string error_message;
  contract::RowStatus status = contract::RowStatus::Pass;
  nlohmann::json counters = nlohmann::json::object();  // user counters: name -> JSON number
};

// Nanoseconds per unit of a row's posted times, which ingest multiplies them by: its time_unit's (ns, us, ms, s), or
// 1 for an aggregate of unit "percentage" (cv: a ratio, not a time); none for any other time_unit.
std::optional<double> ns_per_posted_unit(std::string_view time_unit, std::string_view aggregate_unit);
std::optional<double> ns_per_posted_unit(const StoredRow& r);

struct PackedRows {
  std::int64_t first_idx = 0;  // the rows' idx are kept relative to it, so packs of one suite share shapes
  std::string shape, values;
  std::size_t derived = 0;  // aggregate values kept as a byte saying "computed from the repetitions" (not stored)
  std::size_t rates = 0;    // counter values kept as a count over the row's time (number_codec.h's Rate)
};

// Rows of one benchmark, in document order (throws std::invalid_argument on an empty list or a counter that is
// not a number).
PackedRows pack_rows(const std::vector<StoredRow>& rows);
// Throws codec::Corrupt on bytes that are not a pack. Without `counters`, the rows' counters stay empty (a
// fraction of the work, where only times are read).
std::vector<StoredRow> unpack_rows(std::int64_t first_idx, std::string_view shape, std::string_view values,
                                   bool counters = true);

// The rows a shape describes without their numbers (no times, no counters; idx relative to the pack's first): each
// row's kind, counts, label, status and error, which is what a shape holds. Throws codec::Corrupt as unpack_rows does.
std::vector<StoredRow> shape_rows(std::string_view shape);

// The repetitions' times (ns) that make the benchmark's point, by ingest's rule: its measured iteration rows'
// real times; where it has no iteration row at all (aggregates-only output), the median aggregate, else the mean.
// Rows of expected outcomes and unsupported kernels are no part of a point.
std::vector<double> repetition_times(const std::vector<const StoredRow*>& rows);
std::vector<double> repetition_times(const std::vector<StoredRow>& rows);
// Whether a row is part of its benchmark's point: every row but expected outcomes and unsupported kernels.
bool part_of_point(contract::RowStatus status);
// The label the run page shows for the benchmark's point: the first of its point's rows' labels that is not empty.
// Read from the pack's shape, which holds every row's label: points stored since 2026-12-07 keep none (a real run's
// label, "spirv:<hash> stop:<rule>", took about 4 of its ~64 bytes a repetition there).
std::string point_label(const std::vector<StoredRow>& rows);

}  // namespace shaderwatch
