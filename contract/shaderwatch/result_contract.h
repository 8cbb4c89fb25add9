#pragma once
// What shaderwatch-bench writes and shaderwatch-server reads beyond plain Google Benchmark JSON: spelled
// once, here, for both.
#include <string>
#include <string_view>

namespace shaderwatch::contract {

// The kinds of row. Error rows say their kind with the start of their error message.
enum class RowKind {
  Measured,            // a time: a point of its series
  CorrectnessFailure,  // any other error: a wrong answer or a failed run; fails the verdict
  ExpectedOutcome,     // what an expectations entry accounts for (XFAIL, XPASS, SKIP): kept, never a
                       // failure, never a point
  Unsupported,         // the device cannot run the kernel: kept, never a failure, never a point;
                       // the verdict lists it as skipped
};
// An expected outcome's error message: "EXPECTED (<entry id>): <word>, <detail>", the entry being one of
// kernels/expectations.json (the negative control's id is "negative control") or of a runner's own file.
inline constexpr std::string_view kExpectedOutcomePrefix = "EXPECTED (";
inline constexpr std::string_view kExpectedOutcomeIdEnd = "): ";
inline constexpr std::string_view kUnsupportedPrefix = "UNSUPPORTED: ";
// The words of an expected outcome: an expected failure failed (XFAIL) or, this time, passed (XPASS);
// the entry says not to run the kernel on this device (SKIP).
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

inline RowKind row_kind(bool error_occurred, std::string_view error_message) {
  if (!error_occurred) return RowKind::Measured;
  if (!expected_outcome_word(error_message).empty()) return RowKind::ExpectedOutcome;
  if (error_message.starts_with(kUnsupportedPrefix)) return RowKind::Unsupported;
  return RowKind::CorrectnessFailure;
}

// Context keys the server reads to know the device, driver and harness of a run: each is kContextPrefix
// + the name below ("sw_device_name"). A run is one device.
inline constexpr std::string_view kContextPrefix = "sw_";
// With several devices (shaderwatch-bench --device all) one document holds them all: device N's context
// keys are "swdev<N>_" + name and its benchmark names end in "/dev<N>". The upload client
// (shaderwatch-server post, shaderwatch-bench --post) splits such a document into one run per device,
// each with "sw_" keys and plain names; the server refuses it whole.
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
