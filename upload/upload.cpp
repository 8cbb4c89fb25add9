#include "shaderwatch/upload.h"

#include <httplib.h>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include <shaderwatch/result_contract.h>
#include <shaderwatch/run_envelope.h>

namespace shaderwatch::upload {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {
std::string now_iso() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The run's part of the body; `dated`: the document's context has a date.
ordered_json run_object(const RunMeta& meta, bool dated) {
  using namespace contract;
  ordered_json run = {{kRunId, meta.run_id}, {kRunCommit, meta.commit}};
  // Without an explicit start, the server takes the document's context.date (so a retry sends
  // the same body); only a document without one gets "now".
  if (!meta.started_at.empty()) run[kRunStartedAt] = meta.started_at;
  else if (!dated) run[kRunStartedAt] = now_iso();
  if (!meta.branch.empty()) run[kRunBranch] = meta.branch;
  if (!meta.merge_base.empty()) run[kRunMergeBase] = meta.merge_base;
  if (!meta.runner.empty()) run[kRunRunner] = meta.runner;
  if (!meta.job_url.empty()) run[kRunJobUrl] = meta.job_url;
  return run;
}

}  // namespace

std::string make_body(const std::string& benchmark_json, const RunMeta& meta) {
  const ordered_json doc = parse_benchmark_document(benchmark_json);
  return ordered_json{{contract::kEnvelopeRun, run_object(meta, document_dated(doc))}, {contract::kEnvelopeBenchmark, doc}}
      .dump();
}

std::string make_body_around(std::string_view document_text, bool dated, const RunMeta& meta) {
  const std::string key = ordered_json(contract::kEnvelopeBenchmark).dump();  // "benchmark", quoted
  std::string body = ordered_json{{contract::kEnvelopeRun, run_object(meta, dated)}}.dump();
  body.pop_back();  // the closing brace: the document follows as it is
  return body.append(",").append(key).append(":").append(document_text).append("}");
}

namespace {

// One request to <url><path> with the bearer token: a POST of `body` (JSON), or a GET when `body` is
// null. ok on 200 or 201; otherwise the error says why in one line.
Result request(const std::string& url, const std::string& token, const std::string& path, const std::string* body,
               int timeout_seconds) {
  Result r;
  // Split http://host:port/prefix into the part httplib::Client takes and a path prefix.
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    r.error = "url must start with http:// or https://";
    return r;
  }
  const auto path_start = url.find('/', scheme_end + 3);
  const std::string base = url.substr(0, path_start);
  std::string prefix = path_start == std::string::npos ? "" : url.substr(path_start);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  httplib::Client cli(base);
  if (!cli.is_valid()) {
    r.error = "unsupported url: " + url;
    return r;
  }
  cli.set_connection_timeout(std::chrono::seconds(10));
  cli.set_read_timeout(std::chrono::seconds(timeout_seconds));
  cli.set_write_timeout(std::chrono::seconds(timeout_seconds));
  cli.set_bearer_token_auth(token);
  cli.set_tcp_nodelay(true);
  // httplib sends without MSG_NOSIGNAL: if the server hangs up while we write (e.g. it refused
  // the body), SIGPIPE would kill the caller. Block it in this thread for the call and discard
  // any that arrived, leaving the process's signal handling as it was.
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  auto res = body ? cli.Post(prefix + path, *body, "application/json") : cli.Get(prefix + path);
  const timespec zero{0, 0};
  while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  if (!res) {
    r.error = "no answer from " + url + ": " + httplib::to_string(res.error());
    return r;
  }
  r.status = res->status;
  r.body = res->body;
  r.ok = res->status == 200 || res->status == 201;
  if (!r.ok) {
    r.error = "HTTP " + std::to_string(res->status);
    auto j = json::parse(res->body, nullptr, false);
    if (j.is_object() && j.contains("error") && j["error"].is_object()) {
      const auto& e = j["error"];
      if (e.contains("message") && e["message"].is_string()) r.error += ": " + e["message"].get<std::string>();
      if (e.contains("field") && e["field"].is_string()) r.error += " (field " + e["field"].get<std::string>() + ")";
    } else if (!res->body.empty()) {
      r.error += ": " + res->body.substr(0, 500);
    }
  }
  return r;
}

Result post_body(const std::string& url, const std::string& token, const std::string& body, int timeout_seconds) {
  return request(url, token, std::string(kRunsPath), &body, timeout_seconds);
}

}  // namespace

Result check_upload(const std::string& url, const std::string& token, int timeout_seconds) {
  return request(url, token, std::string(kUploadCheckPath), nullptr, timeout_seconds);
}

Result get_verdict(const std::string& url, const std::string& token, const std::string& run_id, int timeout_seconds) {
  return request(url, token, std::string(kRunsPath) + "/" + run_id + "/verdict", nullptr, timeout_seconds);
}

Result post_run(const std::string& url, const std::string& token, const std::string& benchmark_json,
                const RunMeta& meta, int timeout_seconds) {
  return post_run_with_retries(url, token, benchmark_json, meta, RetryPolicy{1, 0, 0}, {}, timeout_seconds);
}

Result post_run_with_retries(const std::string& url, const std::string& token, const std::string& benchmark_json,
                             const RunMeta& meta, const RetryPolicy& policy,
                             const std::function<void(const std::string&)>& on_retry, int timeout_seconds) {
  std::string body;
  try {
    body = make_body(benchmark_json, meta);
  } catch (const std::invalid_argument& e) {
    Result r;
    r.error = e.what();
    return r;
  }
  return post_body_with_retries(url, token, body, policy, on_retry, timeout_seconds);
}

Result post_body_with_retries(const std::string& url, const std::string& token, const std::string& body,
                              const RetryPolicy& policy, const std::function<void(const std::string&)>& on_retry,
                              int timeout_seconds) {
  double delay = policy.first_delay_seconds;
  for (int attempt = 1;; ++attempt) {
    Result r = post_body(url, token, body, timeout_seconds);
    const bool transient = r.status == 0 || r.status >= 500 || r.status == 429;
    if (r.ok || !transient || attempt >= policy.attempts) return r;
    if (on_retry) {
      char text[64];
      std::snprintf(text, sizeof text, "; try %d of %d in %.1f s", attempt + 1, policy.attempts, delay);
      on_retry(r.error + text);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    delay = std::min(2 * delay, policy.max_delay_seconds);
  }
}

std::vector<PostedRun> post_runs_per_device(const std::string& url, const std::string& token,
                                            const std::string& benchmark_json, const RunMeta& meta,
                                            const RetryPolicy& policy,
                                            const std::function<void(const std::string&)>& on_retry,
                                            int timeout_seconds) {
  std::vector<PostedRun> posted;
  std::vector<DevicePart> parts;
  try {
    parts = split_by_device(benchmark_json);
  } catch (const std::invalid_argument& e) {
    posted.push_back({meta.run_id, Result{false, 0, "", e.what()}});
    return posted;
  }
  for (const auto& part : parts) {
    RunMeta m = meta;
    m.run_id += part.run_id_suffix;
    posted.push_back({m.run_id, post_run_with_retries(url, token, part.benchmark_json, m, policy, on_retry, timeout_seconds)});
    if (!posted.back().result.ok) break;
  }
  return posted;
}

}  // namespace shaderwatch::upload
