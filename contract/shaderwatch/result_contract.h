#pragma once
// What shaderwatch-bench writes and shaderwatch-server reads beyond plain Google Benchmark JSON: spelled
// once, here, for both.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace shaderwatch::contract {

// A row's status, in its own field (kStatusField) of every row shaderwatch-bench writes; Google
// Benchmark's error_occurred and error_message are kept as they were, for its tools. In rising order of
// concern (a benchmark's status is its worst row's): flake passed a rerun of a check that failed (an
// expectations entry says the kernel is flaky there); skip: an entry says not to run it there; xfail,
// xpass: an expected failure failed, or this time passed; unsupported: the device cannot run it.
enum class RowStatus { Pass, Flake, Skip, Xfail, Xpass, Unsupported, Fail };
inline constexpr const char* kStatusField = "sw_status";
inline constexpr RowStatus kRowStatuses[] = {RowStatus::Pass,  RowStatus::Flake,       RowStatus::Skip, RowStatus::Xfail,
                                             RowStatus::Xpass, RowStatus::Unsupported, RowStatus::Fail};
inline std::string_view row_status_word(RowStatus s) {
  switch (s) {
    case RowStatus::Pass: return "pass";
    case RowStatus::Flake: return "flake";
    case RowStatus::Skip: return "skip";
    case RowStatus::Xfail: return "xfail";
    case RowStatus::Xpass: return "xpass";
    case RowStatus::Unsupported: return "unsupported";
    case RowStatus::Fail: return "fail";
  }
  return "fail";
}
inline std::optional<RowStatus> row_status_from_word(std::string_view word) {
  for (RowStatus s : kRowStatuses) {
    if (row_status_word(s) == word) return s;
  }
  return std::nullopt;
}
// Whether a row of this status is an error row (error_occurred, no times): all but pass and flake.
inline bool is_error_status(RowStatus s) { return s != RowStatus::Pass && s != RowStatus::Flake; }

// What a row means to the server.
enum class RowKind {
  Measured,            // pass, flake: a time, a point of its series
  CorrectnessFailure,  // fail: a wrong answer or a failed run; fails the verdict
  ExpectedOutcome,     // xfail, xpass, skip: what an expectations entry accounts for; kept, never a failure,
                       // never a point
  Unsupported,         // the device cannot run the kernel: kept, never a failure, never a point; the
                       // verdict lists it as skipped
};
inline RowKind row_kind(RowStatus s) {
  switch (s) {
    case RowStatus::Pass:
    case RowStatus::Flake: return RowKind::Measured;
    case RowStatus::Skip:
    case RowStatus::Xfail:
    case RowStatus::Xpass: return RowKind::ExpectedOutcome;
    case RowStatus::Unsupported: return RowKind::Unsupported;
    case RowStatus::Fail: return RowKind::CorrectnessFailure;
  }
  return RowKind::CorrectnessFailure;
}

// The error messages of rows that are not failures. They say again, for people and for Google Benchmark's
// tools, what the status field says; documents from before the field say it only this way
// (row_status_of_message). An expected outcome: "EXPECTED (<entry id>): <word>, <detail>", the entry
// being one of kernels/expectations.json (the negative control's id is "negative control") or of a
// runner's own file.
inline constexpr std::string_view kExpectedOutcomePrefix = "EXPECTED (";
inline constexpr std::string_view kExpectedOutcomeIdEnd = "): ";
inline constexpr std::string_view kUnsupportedPrefix = "UNSUPPORTED: ";
inline constexpr std::string_view kXfail = "XFAIL";
inline constexpr std::string_view kXpass = "XPASS";
inline constexpr std::string_view kSkip = "SKIP";

inline std::string expected_outcome_message(std::string_view id, std::string_view word, std::string_view detail) {
  return std::string(kExpectedOutcomePrefix).append(id).append(kExpectedOutcomeIdEnd).append(word).append(", ").append(detail);
}
// The word of an expected outcome's message (XFAIL, XPASS, SKIP), or "" for any other message.
inline std::string_view expected_outcome_word(std::string_view message) {
  if (!message.starts_with(kExpectedOutcomePrefix)) return {};
  const auto end = message.find(kExpectedOutcomeIdEnd, kExpectedOutcomePrefix.size());
  if (end == std::string_view::npos) return {};
  const auto rest = message.substr(end + kExpectedOutcomeIdEnd.size());
  for (auto word : {kXfail, kXpass, kSkip}) {
    if (rest.starts_with(word)) return word;
  }
  return {};
}

// The status of a row from before kStatusField, read from its error message. A flake is a pass here: such
// rows say it with their kCheckRetriesCounter.
inline RowStatus row_status_of_message(bool error_occurred, std::string_view error_message) {
  if (!error_occurred) return RowStatus::Pass;
  const auto word = expected_outcome_word(error_message);
  if (word == kXfail) return RowStatus::Xfail;
  if (word == kXpass) return RowStatus::Xpass;
  if (word == kSkip) return RowStatus::Skip;
  if (error_message.starts_with(kUnsupportedPrefix)) return RowStatus::Unsupported;
  return RowStatus::Fail;
}

// Context keys the server reads to know the device, driver and harness of a run: each is kContextPrefix
// + the name below ("sw_device_name"). A run is one device.
inline constexpr std::string_view kContextPrefix = "sw_";
// With several devices (shaderwatch-bench --device all) the bench writes one document per device,
// FILE-dev<N>.json beside --benchmark_out=FILE.json, posted as run <run id>-dev<N>: each its device's rows (the
// results measured on it) under plain names and its context keys with "sw_". A bench before format 3 wrote
// them all into one document, device N's context keys as "swdev<N>_" + name and its benchmark names ending in
// "/dev<N>". The server refuses such a merged document; `shaderwatch-server post` splits one by those names
// (upload::split_by_device), the one place they are read.
inline constexpr std::string_view kDeviceContextPrefix = "swdev";
inline constexpr std::string_view kDeviceNameSuffix = "/dev";
inline std::string device_context_prefix(std::string_view index) {
  return std::string(kDeviceContextPrefix).append(index).append("_");
}
// The device index of a "swdev<N>_..." key, or "" for any other key.
inline std::string_view device_index_of_key(std::string_view key) {
  if (!key.starts_with(kDeviceContextPrefix)) return {};
  const auto digits = key.substr(kDeviceContextPrefix.size());
  const auto end = digits.find_first_not_of("0123456789");
  if (end == 0 || end == std::string_view::npos || digits[end] != '_') return {};
  return digits.substr(0, end);
}
inline constexpr const char* kDeviceName = "device_name";
inline constexpr const char* kVendorId = "vendor_id";
inline constexpr const char* kDeviceId = "device_id";
inline constexpr const char* kDeviceType = "device_type";
inline constexpr const char* kDriverId = "driver_id";
inline constexpr const char* kDriverName = "driver_name";
inline constexpr const char* kDriverInfo = "driver_info";
inline constexpr const char* kDriverVersion = "driver_version";  // the vendor's spelling (driver_version.h)
inline constexpr const char* kDriverVersionRaw = "driver_version_raw";  // driverVersion in hex, "0x9127c100"
inline constexpr const char* kApiVersion = "api_version";
inline constexpr const char* kDeviceUuid = "device_uuid";
inline constexpr const char* kDriverUuid = "driver_uuid";
inline constexpr const char* kSubgroupSize = "subgroup_size";
inline constexpr const char* kHarnessRevision = "harness_revision";
// The version of this contract a document follows (context_key(kFormatVersion): "sw_format_version", a whole
// number as a string). A document without it is version 1: everything written before the key. The server brings
// each older version up to the current one, one function per version (server/src/ingest/format_upgrade.cpp):
//   1: a row may lack kStatusField (its status is in its error message); the driver version may be an old
//      harness's spelling (NVIDIA's 580.159.04 as 580.159.4.0), kDriverVersionRaw beside it.
//   2: every row carries kStatusField; kDriverVersion is the vendor's spelling (driver_version.h).
//   3: every measured row carries kStopField; each kCompiledSection entry its kernel's "operation". The server
//      reads a row's SPIR-V hash from its kernel's kCompiledSection entry, never from its label (which keeps its
//      "spirv:<hash> stop:<reason>" text for people and Google Benchmark's tools); before 3 a row without an entry
//      is read by its label (spirv_of_label).
//   4: each kCompiledSection entry carries its kernel's kLimitField (what bounds its time). Before 4, none is known.
inline constexpr const char* kFormatVersion = "format_version";
inline constexpr int kCurrentFormatVersion = 4;
// Why the measurement of a row's benchmark stopped (the bench's stopping criterion: "low-noise",
// "noise-converged", "time-cap", ...), on every row that was measured, from format 3.
inline constexpr const char* kStopField = "sw_stop";
// Whether the run recorded what the driver compiled: "captured", or "unavailable: <why>" (a device without
// VK_KHR_pipeline_executable_properties records the SPIR-V hash only).
inline constexpr const char* kPipelineStatistics = "pipeline_statistics";
// What was compiled, once per kernel, in a top-level section of the document beside "benchmarks":
//   "sw_compiled": {"<family/variant>": {"spirv": "<hash>", "input": "<kind>@<generator version>",
//                                        "operation": "<what it computes>",  // from format 3: "tone mapping"; the
//                                        // rankings rank only variants of one operation against each other
//                                        "limit": "bandwidth|latency|compute",  // from format 4: kLimitField
//                                        "pipelines": [  // one per pipeline, in dispatch order
//       [{"executable": "<driver's name>", "subgroup_size": 32,             // one per compiled stage
//         "statistics": [{"name": "<driver's name>", "format": "bool32|int64|uint64|float64", "value": 58}]}]]}}
// A merged document of a bench before format 3 (above) ends its kernel names in "/dev<N>", like its benchmark names.
// What bounds a kernel's time, and so what its % of roofline (kPctOfRooflineCounter) says:
//   bandwidth: its memory traffic; the roofline is its limit;
//   latency: a chain of steps that wait on each other (one invocation or one workgroup doing all the work, atomics
//            or blending into one place, a chain of small dispatches): far under the roofline by construction;
//   compute: the arithmetic per byte (a gather of many taps per pixel): the GPU's instruction issue, not memory.
// Where it is not bandwidth, a % of roofline near zero is the design, not a loss; readers show the limit instead.
enum class Limit { Bandwidth, Latency, Compute };
inline constexpr const char* kLimitField = "limit";
inline constexpr Limit kLimits[] = {Limit::Bandwidth, Limit::Latency, Limit::Compute};
inline std::string_view limit_word(Limit l) {
  switch (l) {
    case Limit::Bandwidth: return "bandwidth";
    case Limit::Latency: return "latency";
    case Limit::Compute: return "compute";
  }
  return "bandwidth";
}
inline std::optional<Limit> limit_from_word(std::string_view word) {
  for (Limit l : kLimits) {
    if (limit_word(l) == word) return l;
  }
  return std::nullopt;
}
inline constexpr const char* kCompiledSection = "sw_compiled";
// A kernel's "spirv" is the 16-hex-digit hash of each of its shaders, one after another, and it has at most this many
// pipelines (passes): a kernel pack may declare no more, and the server takes no more.
inline constexpr std::size_t kMaxKernelPasses = 16;
inline constexpr std::size_t kSpirvHashDigits = 16;
// Each result row's label starts with its kernel's SPIR-V hash: "spirv:<hash> stop:...".
inline constexpr std::string_view kSpirvLabelPrefix = "spirv:";
// The SPIR-V hash a label names, or "" (a label from another tool).
inline std::string_view spirv_of_label(std::string_view label) {
  if (!label.starts_with(kSpirvLabelPrefix)) return {};
  label.remove_prefix(kSpirvLabelPrefix.size());
  return label.substr(0, label.find(' '));
}
inline std::string context_key(std::string_view name) { return std::string(kContextPrefix) + std::string(name); }

// Per-benchmark counters on every repetition row: the quartiles of all the run's samples. The server
// reads their spread as the benchmark's own noise (compare's noise floor).
inline constexpr const char* kMedianCounter = "median_us";
inline constexpr const char* kP25Counter = "p25_us";
inline constexpr const char* kP75Counter = "p75_us";
// The time the benchmark's traffic (bytes read and written per dispatch, from the catalog) takes at the
// same run's measured read-only, write and copy bandwidths, as a percentage of its median time: 100 is
// the memory roofline. Runs before it carry kPctOfPeakCounter instead: bytes read + written against
// the copy peak, which read-mostly kernels exceed (112% at 8K on an H200); shown as "% of copy peak".
inline constexpr const char* kPctOfRooflineCounter = "pct_of_roofline";
inline constexpr const char* kPctOfPeakCounter = "pct_of_peak";
// The worst |error| / bound of the check.
inline constexpr const char* kErrBoundRatioCounter = "err_bound_ratio";
// The worst |error| / probabilistic bound, on rows whose check has one (the float sums); beyond 1 the row is a
// correctness failure spelled "IMPROBABLE: ...". Absent otherwise.
inline constexpr const char* kErrProbableRatioCounter = "err_probable_ratio";
// On a row whose check failed and passed on a rerun (an expectations entry says the kernel is flaky on
// this device): how many checks failed first. Absent otherwise.
inline constexpr const char* kCheckRetriesCounter = "check_retries";

}  // namespace shaderwatch::contract
