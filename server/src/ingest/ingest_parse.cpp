#include "ingest/ingest_parse.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <unordered_set>

#include "common/stored_rows.h"
#include "ingest/benchmark_name.h"
#include "ingest/format_upgrade.h"
#include <shaderwatch/result_contract.h>
#include <shaderwatch/run_envelope.h>

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

constexpr const char* kContextPath = "benchmark.context";

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

// The row keys that are not user counters, sorted: a row's keys come sorted too (nlohmann's objects are std::maps),
// so one walk along both tells them apart, rather than a search per key.
const std::vector<std::string>& known_row_keys() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> keys = {
        "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
        "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "label",
        "error_occurred", "error_message", "aggregate_name", "aggregate_unit", "big_o",
        "cpu_coefficient", "real_coefficient", "rms", contract::kStatusField, contract::kStopField};
    std::sort(keys.begin(), keys.end());
    return keys;
  }();
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
                                 &r.error_message, &r.time_unit})
      h.field(*f);
    h.field(r.counters.dump());  // the text the store kept before schema 9: the same hash for the same run
    for (std::int64_t v : {r.repetition_index, r.repetitions, r.threads, r.iterations, std::int64_t{r.error}})
      h.field(v);
    // Only when given: a run posted before the field keeps its hash (its status follows from the rest).
    if (r.status_given) h.field(std::string(contract::row_status_word(r.status)));
    if (!r.stop.empty()) h.field(r.stop);
    h.field(r.real_ns ? *r.real_ns : -1.0);
    h.field(r.cpu_ns ? *r.cpu_ns : -1.0);
  }
  // Only when given: a run posted before the section keeps its hash.
  for (const auto& k : p.compiled) {
    h.field(k.kernel);
    h.field(k.sha);
    if (!k.operation.empty()) h.field(k.operation);
    if (!k.limit.empty()) h.field(k.limit);
  }
  return h.hex();
}

// The run's own fields: who measured what, where.
void parse_run_fields(const json& run, Parsed& p) {
  using namespace contract;
  const std::string in = kEnvelopeRun;
  const auto field = [&](const char* key) { return in + "." + key; };
  for (auto it = run.begin(); it != run.end(); ++it)
    if (std::find(kRunFields.begin(), kRunFields.end(), it.key()) == kRunFields.end())
      throw ClientError(400, "unknown field", in + "." + it.key());
  p.run_key = get_string(run, kRunId, in, true, 128);
  if (!valid_run_key(p.run_key))
    throw ClientError(400, "must be 1-128 characters of [A-Za-z0-9._:@+-]", field(kRunId));
  p.commit = get_string(run, kRunCommit, in, true, 128);
  if (!printable_no_space(p.commit)) throw ClientError(400, "must be printable ASCII without spaces", field(kRunCommit));
  p.branch = get_string(run, kRunBranch, in, false, 256, "");  // none: the main branch (Store fills it in)
  p.merge_base = get_string(run, kRunMergeBase, in, false, 128, "");
  if (!printable_no_space(p.merge_base))
    throw ClientError(400, "must be printable ASCII without spaces", field(kRunMergeBase));
  p.runner = get_string(run, kRunRunner, in, false, 256);
  p.job_url = get_string(run, kRunJobUrl, in, false, 2048, "");
}

// Start time: run.started_at, else the date Google Benchmark wrote into its context.
void parse_started_at(const json& run, const json& ctx, Parsed& p) {
  std::string started = get_string(run, contract::kRunStartedAt, contract::kEnvelopeRun, false, 64, "");
  std::string started_field = std::string(contract::kEnvelopeRun) + "." + contract::kRunStartedAt;
  if (started.empty()) {
    started = get_string(ctx, "date", kContextPath, false, 64, "");
    started_field = "benchmark.context.date";
    if (started.empty())
      throw ClientError(400, "missing required field (and no benchmark.context.date to fall back on)",
                        std::string(contract::kEnvelopeRun) + "." + contract::kRunStartedAt);
  }
  const auto ms = parse_iso8601_ms(started);
  if (!ms) throw ClientError(400, "must be ISO 8601 with a zone, e.g. 2026-11-21T04:33:38Z", started_field);
  p.started_ms = *ms;
  p.started_at = format_iso8601_ms(*ms);
}

// Device identity from the context; anything missing is "unknown", never a rejection.
void parse_device_context(const json& ctx, Parsed& p) {
  const std::string cp = kContextPath;
  for (const auto& [key, value] : ctx.items()) {
    if (!contract::device_index_of_key(key).empty())
      throw ClientError(400, "a document of several devices (key '" + key + "'): post it with shaderwatch-server post or"
                             " shaderwatch-bench --post, which store one run per device", cp);
  }
  const auto field = [&](const char* name, std::size_t max_len) {
    return get_string(ctx, contract::context_key(name).c_str(), cp, false, max_len);
  };
  p.device_name = field(contract::kDeviceName, 256);
  p.vendor_id = field(contract::kVendorId, 64);
  p.device_id = field(contract::kDeviceId, 64);
  p.device_type = field(contract::kDeviceType, 64);
  p.driver_id = field(contract::kDriverId, 128);
  p.driver_name = field(contract::kDriverName, 256);
  p.driver_info = field(contract::kDriverInfo, 512);
  p.driver_version = field(contract::kDriverVersion, 128);  // the vendor's spelling (format 1: format_upgrade.cpp)
  get_string(ctx, contract::context_key(contract::kDriverVersionRaw).c_str(), cp, false, 32);
  p.api_version = field(contract::kApiVersion, 64);
  p.device_uuid = field(contract::kDeviceUuid, 128);
  p.driver_uuid = field(contract::kDriverUuid, 128);
  p.subgroup_size = field(contract::kSubgroupSize, 32);
  p.harness_revision = field(contract::kHarnessRevision, 128);
  p.host_name = get_string(ctx, "host_name", cp, false, 256);
  p.context = ctx.dump();
  if (p.context.size() > 65536) throw ClientError(400, "larger than 64 KiB", cp);
}

// The document's format version: a whole number from 1 to the current one; none is 1.
int parse_format_version(const json& ctx) {
  const std::string key = contract::context_key(contract::kFormatVersion);
  const std::string text = get_string(ctx, key.c_str(), kContextPath, false, 8, "1");
  const std::string path = std::string(kContextPath) + "." + key;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw ClientError(400, "must be a whole number as a string, such as \"2\"", path);
  const int version = std::stoi(text);
  if (version < 1) throw ClientError(400, "format versions start at 1", path);
  if (version > contract::kCurrentFormatVersion)
    throw ClientError(400, "format version " + text + " is newer than this server reads (up to " +
                               std::to_string(contract::kCurrentFormatVersion) + "): upgrade the server", path);
  return version;
}

// A field the document's format version requires, missing.
ClientError missing_for_format(const std::string& field, int format_version) {
  return ClientError(400, "missing required field (format version " + std::to_string(format_version) + ")", field);
}

// The row's status: its own field, which must agree with error_occurred. Required from format 2 on; a format 1
// row without it gets it from its upgrade (format_upgrade.cpp).
void parse_status(const json& b, const std::string& path, int format_version, Row& r) {
  const json* given = find(b, contract::kStatusField);
  if (!given) {
    if (format_version >= 2) throw missing_for_format(path + "." + contract::kStatusField, format_version);
    return;
  }
  const std::string field = path + "." + contract::kStatusField;
  if (!given->is_string()) throw ClientError(400, "must be a string", field);
  const std::string word = given->get<std::string>();
  const auto status = contract::row_status_from_word(word);
  if (!status) {
    std::string words;
    for (auto s : contract::kRowStatuses) words.append(words.empty() ? "" : ", ").append(contract::row_status_word(s));
    throw ClientError(400, "'" + word.substr(0, 64) + "' is not a row status (" + words + ")", field);
  }
  if (contract::is_error_status(*status) != r.error)
    throw ClientError(400, "'" + word + "' " + (r.error ? "is a status without an error, but error_occurred is true"
                                                        : "is an error's status, but error_occurred is not true"),
                      field);
  r.status = *status;
  r.status_given = true;
}

// Why a measured row's measurement stopped: a word, required from format 3 on (an error row has none).
void parse_stop(const json& b, const std::string& path, int format_version, Row& r) {
  const json* given = find(b, contract::kStopField);
  const std::string field = path + "." + contract::kStopField;
  if (!given) {
    if (format_version >= 3 && !r.error) throw missing_for_format(field, format_version);
    return;
  }
  if (r.error) throw ClientError(400, "an error row was not measured, so it has no stop reason", field);
  r.stop = get_string(b, contract::kStopField, path, true, 32);
  if (r.stop.empty() || !printable_no_space(r.stop)) throw ClientError(400, "must be one word of printable ASCII", field);
}

std::string row_path(std::size_t i) { return "benchmark.benchmarks[" + std::to_string(i) + "]"; }

// One entry of benchmark.benchmarks: an iteration (one repetition) or an aggregate row.
Row parse_row(const json& b, std::size_t i, int format_version) {
  const std::string path = row_path(i);
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
  const std::optional<double> unit_ns = ns_per_posted_unit(r.time_unit, agg ? r.aggregate_unit : "");
  if (!unit_ns) throw ClientError(400, "must be one of ns, us, ms, s", path + ".time_unit");
  const double scale = *unit_ns;
  const auto time_ns = [&](const char* key) -> std::optional<double> {
    const auto t = get_number(b, key, path, need_times && !bigo);
    if (!t) return std::nullopt;
    if (*t < 0 || *t * scale > kMaxNs) throw ClientError(400, "out of range (0 to 1e18 ns)", path + "." + key);
    return *t * scale;
  };
  r.real_ns = time_ns("real_time");
  r.cpu_ns = time_ns("cpu_time");
  // User counters: every other numeric key.
  json counters = json::object();
  const auto& known = known_row_keys();
  auto next_known = known.begin();
  for (auto it = b.begin(); it != b.end(); ++it) {
    while (next_known != known.end() && *next_known < it.key()) ++next_known;
    if (next_known != known.end() && *next_known == it.key()) continue;
    if (it.key().size() > 256) throw ClientError(400, "counter name longer than 256 characters", path);
    if (it.value().is_number()) counters[it.key()] = it.value();
  }
  if (counters.size() > kMaxCounters)
    throw ClientError(400, std::to_string(counters.size()) + " counters, more than " + std::to_string(kMaxCounters), path);
  if (const auto retries = counters.find(contract::kCheckRetriesCounter); retries != counters.end())
    r.check_retries = retries->get<double>();
  r.counters = std::move(counters);
  parse_status(b, path, format_version, r);
  parse_stop(b, path, format_version, r);
  return r;
}

ClientError too_many_rows() {
  return ClientError(400, "more than " + std::to_string(kMaxBenchmarks) + " entries", "benchmark.benchmarks");
}

// Every answer about a run (its points, compare, verdict, reports) grows with its benchmarks: bounded here.
template <class Names>
void check_distinct_benchmarks(const Names& names) {
  if (names.size() > kMaxBenchmarkNames)
    throw ClientError(400, std::to_string(names.size()) + " distinct benchmarks, more than " +
                               std::to_string(kMaxBenchmarkNames) + " in one run", "benchmark.benchmarks");
}

const json& benchmarks_array(const json& doc) {
  const json* benches = find(doc, "benchmarks");
  if (!benches) throw ClientError(400, "missing required field", "benchmark.benchmarks");
  if (!benches->is_array()) throw ClientError(400, "must be an array", "benchmark.benchmarks");
  return *benches;
}

void parse_rows(const json& doc, Parsed& p) {
  const json& benches = benchmarks_array(doc);
  if (benches.size() > kMaxBenchmarks) throw too_many_rows();
  p.rows.reserve(benches.size());
  for (std::size_t i = 0; i < benches.size(); ++i) p.rows.push_back(parse_row(benches[i], i, p.format_version));
  std::unordered_set<std::string_view> names;
  for (const auto& r : p.rows) names.insert(r.series_name);
  check_distinct_benchmarks(names);
}

// Each measured row's SPIR-V hash, from its kernel's compiled entry (p.compiled is sorted by kernel).
void spirv_from_compiled(Parsed& p) {
  if (p.compiled.empty()) return;
  for (Row& r : p.rows) {
    if (r.error) continue;
    const std::string kernel = split_name(r.series_name).kernel();
    const auto it = std::lower_bound(p.compiled.begin(), p.compiled.end(), kernel,
                                     [](const CompiledKernel& k, const std::string& name) { return k.kernel < name; });
    if (it != p.compiled.end() && it->kernel == kernel) r.spirv = it->spirv;
  }
}

// The envelope and the document's context: the run's own fields, its format, start and device.
const json& parse_envelope(const json& j, Parsed& p) {
  using contract::kEnvelopeBenchmark, contract::kEnvelopeRun;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != kEnvelopeRun && it.key() != kEnvelopeBenchmark)
      throw ClientError(400, std::string("unknown field (expected only \"") + kEnvelopeRun + "\" and \"" +
                                 kEnvelopeBenchmark + "\")", it.key());
  const json* run = find(j, kEnvelopeRun);
  if (!run) throw ClientError(400, "missing required field", kEnvelopeRun);
  if (!run->is_object()) throw ClientError(400, "must be an object", kEnvelopeRun);
  const json* doc = find(j, kEnvelopeBenchmark);
  if (!doc) throw ClientError(400, "missing required field", kEnvelopeBenchmark);
  if (!doc->is_object()) throw ClientError(400, "must be an object (Google Benchmark JSON)", kEnvelopeBenchmark);
  parse_run_fields(*run, p);
  const json* ctx = find(*doc, "context");
  if (ctx && !ctx->is_object()) throw ClientError(400, "must be an object", kContextPath);
  static const json empty = json::object();
  if (!ctx) ctx = &empty;
  p.format_version = parse_format_version(*ctx);
  parse_started_at(*run, *ctx, p);
  parse_device_context(*ctx, p);
  return *doc;
}

// A large body checked as it is read, one row at a time, before its tree is built: one refused for a row (or its
// envelope) costs its text and one row's tree, not the document's (json_body.h). The rows are read before the
// format version may be known (the context can follow them), so what the version requires of them is checked after.
void check_large_body(std::string_view body, std::size_t max_nesting) {
  struct Given {
    bool status, stop, error;
  };
  std::vector<Given> given;
  std::unordered_set<std::string> names;
  const json skeleton = parse_json_object_streaming(
      body, max_nesting, {contract::kEnvelopeBenchmark, "benchmarks"}, [&](const json& b, std::size_t i) {
        if (i >= kMaxBenchmarks) throw too_many_rows();
        Row r = parse_row(b, i, 1);  // format 1 requires neither field, and checks them where given
        given.push_back({r.status_given, !r.stop.empty(), r.error});
        names.insert(std::move(r.series_name));
      });
  Parsed p;
  const json& doc = parse_envelope(skeleton, p);
  benchmarks_array(doc);
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (p.format_version >= 2 && !given[i].status)
      throw missing_for_format(row_path(i) + "." + contract::kStatusField, p.format_version);
    if (p.format_version >= 3 && !given[i].error && !given[i].stop)
      throw missing_for_format(row_path(i) + "." + contract::kStopField, p.format_version);
  }
  check_distinct_benchmarks(names);
  parse_compiled_section(doc, p.format_version);
}

}  // namespace

Parsed parse_body(std::string_view body, std::size_t max_nesting) {
  // One large body's tree at a time: its tree takes 3-5 times the body, so large bodies arriving together wait
  // their turn rather than hold a tree each (three 60 MiB bodies refused for a field took 1.1 GB).
  static std::mutex large_turn;
  std::unique_lock<std::mutex> turn(large_turn, std::defer_lock);
  if (body.size() >= kCheckedFirstBytes) {
    check_large_body(body, max_nesting);
    turn.lock();
  }
  const json j = parse_json_object(body, max_nesting);
  Parsed p;
  const json& doc = parse_envelope(j, p);
  parse_rows(doc, p);
  p.compiled = parse_compiled_section(doc, p.format_version);
  spirv_from_compiled(p);
  const json* ctx = find(doc, "context");
  upgrade_to_current(ctx ? *ctx : json::object(), p);
  p.sha = content_hash(p);
  return p;
}

}  // namespace shaderwatch
