#include "report/post_results.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "report/exit_status.h"

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

bool post_results(const PostOptions& o, const std::vector<ResultDocument>& documents) {
  shaderwatch::upload::RetryPolicy policy;
  policy.attempts = o.attempts;
  for (const auto& d : documents) {
    std::ifstream in(d.path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      std::cerr << "post: cannot read " << d.path << "\n";
      return false;
    }
    const shaderwatch::upload::RunMeta meta{o.run_id + d.run_id_suffix, o.commit, o.branch, o.merge_base,
                                            o.runner, o.job_url, ""};
    std::cerr << "posting " << d.path << " to " << o.url << " as run " << meta.run_id << std::endl;
    const auto r = shaderwatch::upload::post_run_with_retries(
        o.url, o.token, text.str(), meta, policy, [](const std::string& why) { std::cerr << "post: " << why << std::endl; });
    if (!r.ok) {
      std::cerr << "post: run " << meta.run_id << " failed: " << r.error << std::endl;
      return false;
    }
    std::cerr << "post: run " << meta.run_id << " " << (r.status == 201 ? "stored" : "already stored") << " (HTTP "
              << r.status << ")" << std::endl;
  }
  return true;
}

}  // namespace shaderwatch
