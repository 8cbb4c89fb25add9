#pragma once
// --post: shaderwatch-bench uploads its own JSON output to a results server (the server's upload
// client, with retries), as a GPU runner job would with `shaderwatch-server post`.
#include <string>
#include <vector>

#include "report/result_documents.h"

namespace shaderwatch {

struct PostOptions {
  std::string url;  // empty: no post
  std::string token, run_id, commit, branch, merge_base, runner, job_url;
  int attempts = 5;
};

// Checks the options before any GPU work: empty when they can be posted, else everything missing, at once.
std::string post_options_problem(const PostOptions& options, const std::string& out_file, const std::string& out_format);

// Asks the server, before any GPU work, whether it answers and the token may post runs (it stores
// nothing). status: kExitPass; kExitInfrastructure when no answer came or the server failed (5xx);
// kExitUsage when it refused the token (401, 403) or the URL is not one; problem says which, for people
// (with kExitPass: a warning, from a server older than the check).
struct PostCheck {
  int status = 0;
  std::string problem;
};
PostCheck check_post_server(const PostOptions& options);

// Posts each document as its own run (the run id with the document's suffix); progress and the server's
// answers on stderr. Returns false when one could not be posted (those after it are not tried).
bool post_results(const PostOptions& options, const std::vector<ResultDocument>& documents);

}  // namespace shaderwatch
