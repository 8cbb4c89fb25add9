// shaderwatch-server post: send a Google Benchmark JSON file to a server as one run per device.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "shaderwatch/upload.h"

namespace shaderwatch::cli {

namespace {

struct PostArgs {
  std::string url, token, file;
  upload::RunMeta meta;
  upload::RetryPolicy retry;
};

int run_post(const PostArgs& a) {
  const auto document = read_text_file(a.file);
  if (!document) {
    std::cerr << "error: cannot read " << a.file << std::endl;
    return 1;
  }
  // A document of several devices (shaderwatch-bench --device all) is posted as one run per device.
  const auto posted = upload::post_runs_per_device(a.url, a.token, *document, a.meta, a.retry,
                                                   [](const std::string& why) { std::cerr << "post: " << why << std::endl; });
  for (const auto& p : posted) {
    if (!p.result.ok) {
      std::cerr << "error: run " << p.run_id << ": " << p.result.error << std::endl;
      return 1;
    }
    std::cout << p.result.body << std::endl;
  }
  return 0;
}

}  // namespace

Command add_post_command(CLI::App& app) {
  auto a = std::make_shared<PostArgs>();
  auto* post = app.add_subcommand("post", "Post a Google Benchmark JSON file as one run (a merged file of several "
                                          "devices, as a bench before result format 3 wrote for --device all: one run "
                                          "per device, run id + -dev<N>); exit 1 on failure");
  post->add_option("--url", a->url, "Server base URL, e.g. http://127.0.0.1:8080")->required();
  post->add_option("--token", a->token, "Bearer token")->envname("SHADERWATCH_TOKEN")->required();
  post->add_option("FILE", a->file, "Google Benchmark JSON (--benchmark_format=json or --benchmark_out)")
      ->required()->check(CLI::ExistingFile);
  post->add_option("--run-id", a->meta.run_id, "Client-chosen unique run id ([A-Za-z0-9._:@+-], max 128)")->required();
  post->add_option("--commit", a->meta.commit, "Commit the run measured")->required();
  post->add_option("--branch", a->meta.branch, "Branch (default: the server's main branch)");
  post->add_option("--merge-base", a->meta.merge_base,
                   "For a run on another branch: the main-branch commit it forked from (its verdict is judged against "
                   "main's level there)");
  post->add_option("--runner", a->meta.runner, "Runner (machine) name");
  post->add_option("--job-url", a->meta.job_url, "CI job URL");
  post->add_option("--started-at", a->meta.started_at, "Run start, ISO 8601 with a zone (default: the file's context.date, else now)");
  post->add_option("--attempts", a->retry.attempts,
                   "Tries in all when no answer comes or the server answers 5xx/429, waiting 1 s, 2 s, 4 s, ... "
                   "(at most 30 s) between them; the same run each time")
      ->check(CLI::Range(1, 100))->capture_default_str();
  return {post, [a] { return run_post(*a); }};
}

}  // namespace shaderwatch::cli
