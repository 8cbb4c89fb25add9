// Client side of POST /api/v1/runs: a small library the benchmark binary can link to post its
// own results, and what `shaderwatch-server post` uses.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "shaderwatch/device_split.h"

namespace shaderwatch::upload {

struct RunMeta {
  std::string run_id;      // client-chosen, unique per run: re-posting it is a no-op
  std::string commit;      // required
  std::string branch;      // optional (empty: the server's main branch)
  std::string merge_base;  // optional: the main-branch commit a branch run forked from
  std::string runner;      // optional
  std::string job_url;     // optional
  std::string started_at;  // ISO 8601 with a zone; now when empty
};

// Where runs are posted, and where a client asks, before its work, whether its token may post them.
inline constexpr std::string_view kRunsPath = "/api/v1/runs";
inline constexpr std::string_view kUploadCheckPath = "/api/v1/upload-check";

struct Result {
  bool ok = false;      // 200 (already stored, same body) or 201 (stored)
  int status = 0;       // HTTP status, 0 when no answer came
  std::string body;     // the server's answer
  std::string error;    // one line for humans when !ok
};

// The request body: {"run": {...meta...}, "benchmark": <the Google Benchmark JSON document>}.
// Throws std::invalid_argument when benchmark_json is not a JSON object.
std::string make_body(const std::string& benchmark_json, const RunMeta& meta);
// The same around a document the caller made and wrote (shaderwatch-bench's): its text goes in as it is, not
// parsed again. `dated`: its context has a date (the server takes the run's start from it).
std::string make_body_around(std::string_view document_text, bool dated, const RunMeta& meta);

// Posts to <url>/api/v1/runs (url: http://host:port[/prefix], or https:// when the httplib in
// use has OpenSSL support) with "Authorization: Bearer <token>".
Result post_run(const std::string& url, const std::string& token, const std::string& benchmark_json,
                const RunMeta& meta, int timeout_seconds = 60);

// GET <url>/api/v1/upload-check: ok (200) when the server answers and the token may post runs; stores
// nothing. status 0: no answer (the server is down or the URL wrong); 401: the token is unknown or
// revoked; 403: its scope does not allow uploads. One try, for a client to find a mistake before its work.
Result check_upload(const std::string& url, const std::string& token, int timeout_seconds = 10);

// GET <url>/api/v1/runs/<run_id>/verdict: the server's verdict on a stored run (its body, the verdict's JSON).
Result get_verdict(const std::string& url, const std::string& token, const std::string& run_id, int timeout_seconds = 60);

// Retries when no answer came or the server answered 5xx or 429, waiting first_delay, then twice as
// long each time (at most max_delay), up to `attempts` tries in all. The body is made once, so every
// try sends the same run: the server stores it once (a repeat of a stored run answers 200). A 4xx other
// than 429 is the request's fault and is not retried.
struct RetryPolicy {
  int attempts = 5;
  double first_delay_seconds = 1;
  double max_delay_seconds = 30;
};
Result post_run_with_retries(const std::string& url, const std::string& token, const std::string& benchmark_json,
                             const RunMeta& meta, const RetryPolicy& policy,
                             const std::function<void(const std::string&)>& on_retry = {}, int timeout_seconds = 60);
// The same with the body made (make_body, make_body_around).
Result post_body_with_retries(const std::string& url, const std::string& token, const std::string& body,
                              const RetryPolicy& policy, const std::function<void(const std::string&)>& on_retry = {},
                              int timeout_seconds = 60);

// Every device's part of the document (split_by_device: one part for a document of one device) posted as
// its own run, the run id with the part's suffix (post_run_with_retries each), in device order; stops at
// the first that cannot be posted, so the last result says why.
struct PostedRun {
  std::string run_id;
  Result result;
};
std::vector<PostedRun> post_runs_per_device(const std::string& url, const std::string& token,
                                            const std::string& benchmark_json, const RunMeta& meta,
                                            const RetryPolicy& policy,
                                            const std::function<void(const std::string&)>& on_retry = {},
                                            int timeout_seconds = 60);

}  // namespace shaderwatch::upload
