#include "report/post_results.h"

#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>
#include <shaderwatch/dashboard_links.h>

#include "common/exit_status.h"

#include "shaderwatch/upload.h"

namespace shaderwatch {

std::string post_options_problem(const PostOptions& o, const std::string& out_file, const std::string& out_format) {
  std::vector<std::string> missing;
  if (out_file.empty() || out_format != "json")
    missing.push_back("the JSON it posts: add --benchmark_out=FILE (format json, the default)");
  if (o.token.empty()) missing.push_back("an upload token in SHADERWATCH_TOKEN (shaderwatch-server token create NAME)");
  if (o.commit.empty()) missing.push_back("--commit (or SHADERWATCH_COMMIT): the commit this run measured");
  if (o.run_id.empty()) missing.push_back("--run-id (or SHADERWATCH_RUN_ID): unique per run, re-posting it is a no-op");
  if (o.attempts < 1) missing.push_back("--post-attempts of at least 1");
  if (missing.empty()) return "";
  std::string problem = "--post needs:";
  for (const auto& m : missing) problem.append("\n  ").append(m);
  return problem;
}

PostCheck check_post_server(const PostOptions& o) {
  const auto r = shaderwatch::upload::check_upload(o.url, o.token);
  if (r.ok) return {};
  const std::string where = "--post " + o.url + ": ";
  if (r.status == 401 || r.status == 403)
    return {kExitUsage, where + "the server refuses the token in SHADERWATCH_TOKEN (" + r.error + ")"};
  if (r.status == 0 && r.error.find("no answer") == std::string::npos) return {kExitUsage, where + r.error};
  // A server from before the upload check: the token is tried when the results are posted.
  if (r.status == 404)
    return {kExitPass, where + "the server has no upload check (an older version?): the token is tried at the end"};
  return {kExitInfrastructure, where + "the results server cannot be reached or failed (" + r.error + ")"};
}

namespace {

// "FAIL (2 slowdowns, 1 regression; 3 suspects)" from the verdict's JSON; empty when it is not one.
std::string verdict_words(const std::string& body) {
  const auto v = nlohmann::json::parse(body, nullptr, false);
  if (!v.is_object() || !v.contains("verdict") || !v["verdict"].is_string()) return "";
  const auto count = [&](const char* key) { return v.contains(key) && v[key].is_array() ? v[key].size() : 0; };
  std::vector<std::string> failing;
  const auto add = [&](std::size_t n, const char* one, const char* many) {
    if (n) failing.push_back(std::to_string(n) + " " + (n == 1 ? one : many));
  };
  add(count("correctness"), "correctness failure", "correctness failures");
  add(count("regressions"), "regression", "regressions");
  add(count("slowdowns"), "slowdown", "slowdowns");
  std::string words = v["verdict"] == "fail" ? "FAIL" : "PASS";
  std::string detail;
  for (std::size_t i = 0; i < failing.size(); ++i) detail += (i ? ", " : "") + failing[i];
  if (const auto n = count("suspects")) detail += (detail.empty() ? "" : "; ") + std::to_string(n) + (n == 1 ? " suspect" : " suspects");
  return detail.empty() ? words : words + " (" + detail + ")";
}

// The server's explanation of each failing benchmark, as it words them (the same words as summary.md and
// junit.xml), then where to look next: a few lines under the verdict; the rest are a link away.
std::string failing_explanations(const std::string& body) {
  const auto v = nlohmann::json::parse(body, nullptr, false);
  if (!v.is_object() || !v.contains("explanations") || !v["explanations"].is_array()) return "";
  const auto text = [](const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  constexpr int kShown = 6;
  std::string out, next;
  int failing = 0;
  for (const auto& e : v["explanations"]) {
    if (!e.is_object() || !e.value("failing", false)) continue;
    if (++failing > kShown) continue;
    out += "  " + text(e, "benchmark") + ": " + text(e, "headline") + "\n    " + text(e, "evidence") + "\n";
    if (e.contains("next") && e["next"].is_object()) {
      const auto& n = e["next"];
      out += "    chart: " + text(n, "series_url") + "\n";
      if (next.empty()) {
        if (const auto c = text(n, "compare_url"); !c.empty()) next += "  compare with its baseline: " + c + "\n";
        if (const auto c = text(n, "reproduce"); !c.empty()) next += "  measure it alone: " + c + "\n";
        if (const auto c = text(n, "bisect"); !c.empty()) next += "  find the commit: " + c + "\n";
      }
    }
  }
  if (failing > kShown) out += "  ... and " + std::to_string(failing - kShown) + " more on the run's page\n";
  return out + next;
}

}  // namespace

int status_after_post(int status, const PostOptions& o, const PostOutcome& outcome) {
  if (!outcome.posted || (o.gate && outcome.unknown)) return kExitInfrastructure;
  if (status != kExitPass) return status;
  return o.gate && outcome.failed ? kExitRegression : status;
}

PostOutcome post_results(const PostOptions& o, const std::vector<ResultDocument>& documents) {
  PostOutcome outcome;
  shaderwatch::upload::RetryPolicy policy;
  policy.attempts = o.attempts;
  for (const auto& d : documents) {
    const shaderwatch::upload::RunMeta meta{o.run_id + d.run_id_suffix, o.commit, o.branch, o.merge_base,
                                            o.runner, o.job_url, ""};
    std::cerr << "posting " << d.path << " to " << o.url << " as run " << meta.run_id << std::endl;
    // The text written to d.path, as it is: the document is made once.
    const auto r = shaderwatch::upload::post_body_with_retries(
        o.url, o.token, shaderwatch::upload::make_body_around(d.text, d.dated, meta), policy,
        [](const std::string& why) { std::cerr << "post: " << why << std::endl; });
    if (!r.ok) {
      std::cerr << "post: run " << meta.run_id << " failed: " << r.error << std::endl;
      outcome.posted = false;
      return outcome;
    }
    const auto v = shaderwatch::upload::get_verdict(o.url, o.token, meta.run_id);
    const std::string words = v.ok ? verdict_words(v.body) : "";
    outcome.failed += words.rfind("FAIL", 0) == 0;
    outcome.unknown += words.empty();
    std::cerr << "post: run " << meta.run_id << " " << (r.status == 201 ? "stored" : "already stored") << " (HTTP "
              << r.status << "): verdict " << (words.empty() ? "unknown (" + (v.ok ? "not a verdict" : v.error) + ")" : words)
              << ": " << contract::dashboard_run_page(o.url, meta.run_id) << std::endl;
    if (v.ok) std::cerr << failing_explanations(v.body) << std::flush;
  }
  return outcome;
}

}  // namespace shaderwatch
