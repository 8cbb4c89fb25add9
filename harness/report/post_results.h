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
  bool gate = false;  // --gate: exit with the server's verdict (kExitRegression when it failed a run)
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
// answers on stderr, then for each run one line with the server's verdict and the run's dashboard page:
//   post: run r1 stored (HTTP 201): verdict FAIL (2 slowdowns, 1 regression; 3 suspects): http://host/#/runs/r1
// `posted`: false when one could not be posted (those after it are not tried); `failed`: runs whose verdict failed;
// `unknown`: runs whose verdict could not be read.
struct PostOutcome {
  bool posted = true;
  int failed = 0, unknown = 0;
};
PostOutcome post_results(const PostOptions& options, const std::vector<ResultDocument>& documents);
// The bench's exit status after the post: infrastructure when a run could not be posted, or (with --gate) its
// verdict not read; with --gate, kExitRegression when the server's verdict failed a run; else `status`.
int status_after_post(int status, const PostOptions& options, const PostOutcome& outcome);

}  // namespace shaderwatch
