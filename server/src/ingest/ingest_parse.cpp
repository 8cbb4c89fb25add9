#include "ingest/ingest_parse.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ingest/driver_identity.h"
#include "ingest/benchmark_name.h"
#include <shaderwatch/result_contract.h>

#include <nlohmann/json.hpp>

#include "common/client_error.h"
#include "common/iso8601.h"
#include "common/json_body.h"
#include "common/sha256.h"

using nlohmann::json;

namespace shaderwatch {

namespace contract = shaderwatch::contract;

namespace {

constexpr std::size_t kMaxBenchmarks = 200000;      // rows
constexpr std::size_t kMaxBenchmarkNames = 10000;   // distinct benchmarks (shaderwatch-bench writes about 600)
constexpr std::size_t kMaxString = 1024;
constexpr std::size_t kMaxCounters = 256;  // per row; shaderwatch-bench writes about 25
constexpr double kMaxNs = 1e18;  // ~31 years: anything larger is a unit or encoding bug

// ---- Input validation helpers: every failure names the field. ----

const json* find(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string get_string(const json& obj, const char* key, const std::string& path, bool required,
                       std::size_t max_len = kMaxString, const std::string& dflt = "unknown") {
  const json* v = find(obj, key);
  if (!v || v->is_null()) {
    if (required) throw ClientError(400, "missing required field", path + "." + key);
    return dflt;
  }
  if (!v->is_string()) throw ClientError(400, "must be a string", path + "." + key);
  const auto& s = v->get_ref<const std::string&>();
  if (required && s.empty()) throw ClientError(400, "must not be empty", path + "." + key);
  if (s.size() > max_len)
    throw ClientError(400, "longer than " + std::to_string(max_len) + " characters", path + "." + key);
  return s;
}

std::int64_t get_int(const json& obj, const char* key, const std::string& path, bool required,
                     std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
  const json* v = find(obj, key);
  if (!v) {
    if (required) throw ClientError(400, "missing required field", path + "." + key);
    return dflt;
  }
  std::int64_t x;
  if (v->is_number_unsigned()) {
    const auto u = v->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi)) throw ClientError(400, "out of range", path + "." + key);
    x = static_cast<std::int64_t>(u);
  } else if (v->is_number_integer()) {
    x = v->get<std::int64_t>();
  } else if (v->is_number_float()) {
    throw ClientError(400, "must be an integer (got a non-integer or too large number)",
                      path + "." + key);
  } else {
    throw ClientError(400, "must be an integer", path + "." + key);
  }
  if (x < lo || x > hi)
    throw ClientError(400, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
                      path + "." + key);
  return x;
}

std::optional<double> get_number(const json& obj, const char* key, const std::string& path,
                                 bool required) {
  const json* v = find(obj, key);
  if (!v) {
    if (required) throw ClientError(400, "missing required field", path + "." + key);
    return std::nullopt;
  }
  if (!v->is_number()) throw ClientError(400, "must be a number", path + "." + key);
  const double d = v->get<double>();
  if (!std::isfinite(d)) throw ClientError(400, "must be finite", path + "." + key);
  return d;
}

bool valid_run_key(const std::string& s) {
  if (s.empty() || s.size() > 128) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == ':' || c == '@' ||
           c == '+';
  });
}

bool printable_no_space(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return c > 32 && c < 127; });
}

const std::set<std::string>& known_row_keys() {
  static const std::set<std::string> k = {
      "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
      "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "label",
      "error_occurred", "error_message", "aggregate_name", "aggregate_unit", "big_o",
      "cpu_coefficient", "real_coefficient", "rms"};
  return k;
}

// Identity of a run's content for idempotency: everything that is stored, field by field, in a
// fixed order. Formatting, key order and keys the server ignores do not change it, and it costs
// a fraction of re-serialising the document.
std::string content_hash(const Parsed& p) {
  Sha256 h;
  for (const std::string* f : {&p.run_key, &p.commit, &p.branch, &p.runner, &p.job_url, &p.started_at, &p.context})
    h.field(*f);
  if (!p.merge_base.empty()) h.field(p.merge_base);  // only when given: runs stored before it keep their hash
  h.field(static_cast<std::int64_t>(p.rows.size()));
  for (const auto& r : p.rows) {
    for (const std::string* f : {&r.series_name, &r.run_type, &r.aggregate_name, &r.aggregate_unit, &r.label,
                                 &r.error_message, &r.time_unit, &r.counters})
      h.field(*f);
    for (std::int64_t v : {r.repetition_index, r.repetitions, r.threads, r.iterations, std::int64_t{r.error}})
      h.field(v);
    h.field(r.real_ns ? *r.real_ns : -1.0);
    h.field(r.cpu_ns ? *r.cpu_ns : -1.0);
  }
  return h.hex();
}

}  // namespace

Parsed parse_body(std::string_view body, std::size_t max_nesting) {
  const json j = parse_json_object(body, max_nesting);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "run" && it.key() != "benchmark")
      throw ClientError(400, "unknown field (expected only \"run\" and \"benchmark\")", it.key());
  const json* run = find(j, "run");
  if (!run) throw ClientError(400, "missing required field", "run");
  if (!run->is_object()) throw ClientError(400, "must be an object", "run");
  const json* doc = find(j, "benchmark");
  if (!doc) throw ClientError(400, "missing required field", "benchmark");
  if (!doc->is_object()) throw ClientError(400, "must be an object (Google Benchmark JSON)", "benchmark");

  Parsed p;
  static const std::set<std::string> run_keys = {"id", "commit", "branch", "merge_base", "runner", "job_url",
                                                  "started_at"};
  for (auto it = run->begin(); it != run->end(); ++it)
    if (!run_keys.count(it.key())) throw ClientError(400, "unknown field", "run." + it.key());
  p.run_key = get_string(*run, "id", "run", true, 128);
  if (!valid_run_key(p.run_key))
    throw ClientError(400, "must be 1-128 characters of [A-Za-z0-9._:@+-]", "run.id");
  p.commit = get_string(*run, "commit", "run", true, 128);
  if (!printable_no_space(p.commit)) throw ClientError(400, "must be printable ASCII without spaces", "run.commit");
  p.branch = get_string(*run, "branch", "run", false, 256, "");  // none: the main branch (Store fills it in)
  p.merge_base = get_string(*run, "merge_base", "run", false, 128, "");
  if (!printable_no_space(p.merge_base)) throw ClientError(400, "must be printable ASCII without spaces", "run.merge_base");
  p.runner = get_string(*run, "runner", "run", false, 256);
  p.job_url = get_string(*run, "job_url", "run", false, 2048, "");

  // Device identity from the context; anything missing is "unknown", never a rejection.
  const json* ctx = find(*doc, "context");
  json empty = json::object();
  if (ctx && !ctx->is_object()) throw ClientError(400, "must be an object", "benchmark.context");
  if (!ctx) ctx = &empty;
  const std::string cp = "benchmark.context";
  // Start time: run.started_at, else the date Google Benchmark wrote into its context.
  std::string started = get_string(*run, "started_at", "run", false, 64, "");
  std::string started_field = "run.started_at";
  if (started.empty()) {
    started = get_string(*ctx, "date", cp, false, 64, "");
    started_field = "benchmark.context.date";
    if (started.empty())
      throw ClientError(400, "missing required field (and no benchmark.context.date to fall back on)",
                        "run.started_at");
  }
  const auto ms = parse_iso8601_ms(started);
  if (!ms) throw ClientError(400, "must be ISO 8601 with a zone, e.g. 2026-11-21T04:33:38Z", started_field);
  p.started_ms = *ms;
  p.started_at = format_iso8601_ms(*ms);
  for (const auto& [key, value] : ctx->items()) {
    if (!contract::device_index_of_key(key).empty())
      throw ClientError(400, "a document of several devices (key '" + key + "'): post it with shaderwatch-server post or"
                             " shaderwatch-bench --post, which store one run per device", cp);
  }
  p.device_name = get_string(*ctx, contract::context_key(contract::kDeviceName).c_str(), cp, false, 256);
  p.vendor_id = get_string(*ctx, contract::context_key(contract::kVendorId).c_str(), cp, false, 64);
  p.device_id = get_string(*ctx, contract::context_key(contract::kDeviceId).c_str(), cp, false, 64);
  p.device_type = get_string(*ctx, contract::context_key(contract::kDeviceType).c_str(), cp, false, 64);
  p.driver_id = get_string(*ctx, contract::context_key(contract::kDriverId).c_str(), cp, false, 128);
  p.driver_name = get_string(*ctx, contract::context_key(contract::kDriverName).c_str(), cp, false, 256);
  p.driver_info = get_string(*ctx, contract::context_key(contract::kDriverInfo).c_str(), cp, false, 512);
  p.driver_version = get_string(*ctx, contract::context_key(contract::kDriverVersion).c_str(), cp, false, 128);
  // One spelling everywhere: the vendor's, from the raw driverVersion where the harness wrote it (a harness
  // before this spelling wrote NVIDIA's 580.159.04 as 580.159.4.0).
  const auto context_text = [&](const char* name, std::size_t max_len) {
    return get_string(*ctx, contract::context_key(name).c_str(), cp, false, max_len, "");
  };
  try {
    p.driver_version = spelled_driver_version(context_text(contract::kVendorId, 64), context_text(contract::kDriverId, 128),
                                              context_text(contract::kDriverVersionRaw, 32), p.driver_version);
  } catch (const std::invalid_argument& e) {
    throw ClientError(400, e.what(), cp);
  }
  p.api_version = get_string(*ctx, contract::context_key(contract::kApiVersion).c_str(), cp, false, 64);
  p.device_uuid = get_string(*ctx, contract::context_key(contract::kDeviceUuid).c_str(), cp, false, 128);
  p.driver_uuid = get_string(*ctx, contract::context_key(contract::kDriverUuid).c_str(), cp, false, 128);
  p.subgroup_size = get_string(*ctx, contract::context_key(contract::kSubgroupSize).c_str(), cp, false, 32);
  p.harness_revision = get_string(*ctx, contract::context_key(contract::kHarnessRevision).c_str(), cp, false, 128);
  p.host_name = get_string(*ctx, "host_name", cp, false, 256);
  p.context = ctx->dump();
  if (p.context.size() > 65536) throw ClientError(400, "larger than 64 KiB", cp);

  const json* benches = find(*doc, "benchmarks");
  if (!benches) throw ClientError(400, "missing required field", "benchmark.benchmarks");
  if (!benches->is_array()) throw ClientError(400, "must be an array", "benchmark.benchmarks");
  if (benches->size() > kMaxBenchmarks)
    throw ClientError(400, "more than " + std::to_string(kMaxBenchmarks) + " entries", "benchmark.benchmarks");
  p.rows.reserve(benches->size());
  for (std::size_t i = 0; i < benches->size(); ++i) {
    const json& b = (*benches)[i];
    const std::string path = "benchmark.benchmarks[" + std::to_string(i) + "]";
    if (!b.is_object()) throw ClientError(400, "must be an object", path);
    Row r;
    r.idx = i;
    const std::string name = get_string(b, "name", path, true);
    r.run_type = get_string(b, "run_type", path, false, 16, "iteration");
    if (r.run_type != "iteration" && r.run_type != "aggregate")
      throw ClientError(400, "must be \"iteration\" or \"aggregate\"", path + ".run_type");
    const bool agg = r.run_type == "aggregate";
    if (agg) {
      r.aggregate_name = get_string(b, "aggregate_name", path, true, 64);
      r.aggregate_unit = get_string(b, "aggregate_unit", path, false, 32, "time");
    }
    r.series_name = get_string(b, "run_name", path, false, kMaxString, "");
    if (r.series_name.empty()) {
      r.series_name = name;
      const std::string suffix = "_" + r.aggregate_name;
      if (agg && name.size() > suffix.size() && name.ends_with(suffix))
        r.series_name = name.substr(0, name.size() - suffix.size());
    }
    r.series_name = shaderwatch::series_key(r.series_name);
    get_int(b, "family_index", path, false, 0, 0, 1 << 30);
    get_int(b, "per_family_instance_index", path, false, 0, 0, 1 << 30);
    r.repetitions = get_int(b, "repetitions", path, false, 1, 0, 1 << 30);
    r.repetition_index = get_int(b, "repetition_index", path, false, 0, 0, 1 << 30);
    r.threads = get_int(b, "threads", path, false, 1, 1, 1 << 20);
    if (const json* e = find(b, "error_occurred")) {
      if (!e->is_boolean()) throw ClientError(400, "must be a boolean", path + ".error_occurred");
      r.error = e->get<bool>();
    }
    r.error_message = get_string(b, "error_message", path, false, 4096, "");
    if (r.error && r.error_message.empty()) r.error_message = "error_occurred without a message";
    r.label = get_string(b, "label", path, false, kMaxString, "");
    const bool bigo = find(b, "big_o") || find(b, "rms");
    // Iteration rows must carry their measurements unless they failed; BigO/RMS rows carry
    // coefficients instead, so their times are optional.
    const bool need_times = !agg && !r.error;
    r.iterations = get_int(b, "iterations", path, need_times, 0, 0, INT64_MAX);
    r.time_unit = get_string(b, "time_unit", path, false, 8, "ns");
    double scale;
    if (r.time_unit == "ns") scale = 1;
    else if (r.time_unit == "us") scale = 1e3;
    else if (r.time_unit == "ms") scale = 1e6;
    else if (r.time_unit == "s") scale = 1e9;
    else throw ClientError(400, "must be one of ns, us, ms, s", path + ".time_unit");
    if (agg && r.aggregate_unit == "percentage") scale = 1;  // cv rows: a ratio, not a time
    auto rt = get_number(b, "real_time", path, need_times && !bigo);
    auto ct = get_number(b, "cpu_time", path, need_times && !bigo);
    if (rt) {
      if (*rt < 0 || *rt * scale > kMaxNs) throw ClientError(400, "out of range (0 to 1e18 ns)", path + ".real_time");
      r.real_ns = *rt * scale;
    }
    if (ct) {
      if (*ct < 0 || *ct * scale > kMaxNs) throw ClientError(400, "out of range (0 to 1e18 ns)", path + ".cpu_time");
      r.cpu_ns = *ct * scale;
    }
    // User counters: every other numeric key.
    json counters = json::object();
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (known_row_keys().count(it.key())) continue;
      if (it.key().size() > 256) throw ClientError(400, "counter name longer than 256 characters", path);
      if (it.value().is_number()) counters[it.key()] = it.value();
    }
    if (counters.size() > kMaxCounters)
      throw ClientError(400, std::to_string(counters.size()) + " counters, more than " + std::to_string(kMaxCounters), path);
    r.counters = counters.dump();
    p.rows.push_back(std::move(r));
  }
  // Every answer about a run (its points, compare, verdict, reports) grows with its benchmarks: bounded here.
  std::set<std::string_view> names;
  for (const auto& r : p.rows) names.insert(r.series_name);
  if (names.size() > kMaxBenchmarkNames)
    throw ClientError(400, std::to_string(names.size()) + " distinct benchmarks, more than " +
                               std::to_string(kMaxBenchmarkNames) + " in one run", "benchmark.benchmarks");
  p.sha = content_hash(p);
  return p;
}


}  // namespace shaderwatch
