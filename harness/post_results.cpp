#include "post_results.h"

#include <fstream>
#include <iostream>
#include <sstream>

#ifdef SHADERWATCH_UPLOAD
#include "shaderwatch/upload.hpp"
#endif

namespace shaderwatch {

std::string post_options_problem(const PostOptions& o, const std::string& out_file, const std::string& out_format) {
#ifndef SHADERWATCH_UPLOAD
  (void)o, (void)out_file, (void)out_format;
  return "--post: this shaderwatch-bench was built without the results server (SHADERWATCH_SERVER=OFF)";
#else
  if (out_file.empty() || out_format != "json")
    return "--post needs the JSON it posts: add --benchmark_out=FILE (format json, the default)";
  if (o.token.empty()) return "--post needs an upload token in SHADERWATCH_TOKEN (shaderwatch-server token create NAME)";
  if (o.commit.empty()) return "--post needs --commit (or SHADERWATCH_COMMIT): the commit this run measured";
  if (o.run_id.empty()) return "--post needs --run-id (or SHADERWATCH_RUN_ID): unique per run, re-posting it is a no-op";
  if (o.attempts < 1) return "--post-attempts must be at least 1";
  return "";
#endif
}

bool post_results(const PostOptions& o, const std::string& out_file) {
#ifndef SHADERWATCH_UPLOAD
  (void)o, (void)out_file;
  return false;
#else
  std::ifstream in(out_file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "post: cannot read " << out_file << "\n";
    return false;
  }
  const sw::upload::RunMeta meta{o.run_id, o.commit, o.branch, o.merge_base, o.runner, o.job_url, ""};
  sw::upload::RetryPolicy policy;
  policy.attempts = o.attempts;
  std::cerr << "posting " << out_file << " to " << o.url << " as run " << o.run_id
            << " (one run per device, -dev<N>, with several)" << std::endl;
  const auto posted = sw::upload::post_runs_per_device(
      o.url, o.token, text.str(), meta, policy, [](const std::string& why) { std::cerr << "post: " << why << std::endl; });
  for (const auto& p : posted) {
    if (!p.result.ok) {
      std::cerr << "post: run " << p.run_id << " failed: " << p.result.error << std::endl;
      return false;
    }
    std::cerr << "post: run " << p.run_id << " " << (p.result.status == 201 ? "stored" : "already stored") << " (HTTP "
              << p.result.status << ")" << std::endl;
  }
  return true;
#endif
}

}  // namespace shaderwatch
