// shaderwatch-server: serve the results API, manage upload tokens, post results.
#include <CLI/CLI.hpp>

#include <csignal>
#include <fstream>
#include <iostream>
#include <pthread.h>
#include <sstream>

#include "storage/copy_database.h"
#include "http/http_server.h"
#include "storage/store.h"
#include "shaderwatch/upload.h"

namespace {

int run_serve(const shaderwatch::StoreOptions& so, const shaderwatch::ServerOptions& opts) {
  // Block the stop signals in every thread; one thread waits for them and stops the server.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  shaderwatch::Store store(so);
  shaderwatch::HttpServer server(store, opts);
  const int port = server.bind();
  std::cout << "shaderwatch-server: listening on http://" << opts.bind << ":" << port
            << " (database " << store.location() << ", schema v" << store.schema_version() << ")" << std::endl;
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&set, &sig);
    std::cout << "shaderwatch-server: signal " << sig << ", stopping" << std::endl;
    server.stop();
  });
  server.serve();
  // serve() also returns when the socket fails; make sure the waiter exits either way.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"shaderwatch-server: results server for shaderwatch (Google Benchmark JSON in, "
               "regressions out). See server/README.md for the API."};
  app.require_subcommand(1);

  std::string db = "./shaderwatch.db";
  // People type it before the subcommand too: the same file either way.
  // One text names the database everywhere: an SQLite file, or a PostgreSQL server.
  const std::string db_help = "SQLite file (a path or sqlite:PATH) or PostgreSQL database (postgresql://USER@HOST/DB, "
                              "libpq's URI; see server/README.md on choosing)";
  app.add_option("--db", db, db_help + " (serve, token): before or after the subcommand")->envname("SHADERWATCH_DB");
  shaderwatch::ServerOptions sopts;
  auto* serve = app.add_subcommand("serve", "Serve the HTTP API");
  serve->add_option("--db", db, db_help + "; created and migrated if needed")->envname("SHADERWATCH_DB")->capture_default_str();
  serve->add_option("--port", sopts.port, "TCP port (0: pick a free one and print it)")
      ->check(CLI::Range(0, 65535))->capture_default_str();
  serve->add_option("--bind", sopts.bind, "Address to listen on")->capture_default_str();
  serve->add_option("--max-body-bytes", sopts.max_body_bytes, "Largest request body accepted (413 above)")
      ->check(CLI::Range(static_cast<std::size_t>(1024), static_cast<std::size_t>(1) << 32))->capture_default_str();
  std::string main_branch = shaderwatch::StoreOptions{}.main_branch;
  serve->add_option("--main-branch", main_branch,
                    "The baseline branch: its runs (and runs naming no branch) form levels, change points and alerts; "
                    "a run on any other branch is judged against it at the run's merge_base")
      ->check([](const std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); })
      ->capture_default_str();
  bool gate_cpu_timings = false;
  serve->add_flag("--gate-cpu-timings", gate_cpu_timings,
                  "Let the timings of a device of type cpu (lavapipe) fail verdicts too; by default such runs are judged "
                  "on correctness alone (on a shared runner their times move several-fold between runs)");
  std::uint64_t max_db_mib = 0;
  serve->add_option("--max-db-mib", max_db_mib,
                    "SQLite only: refuse writes (507) once the file reaches this many MiB (default 0: until the disk "
                    "is full, which answers 507 too; on PostgreSQL a full disk answers 507 and quotas are the server's)")
      ->capture_default_str();
  serve->add_flag("--read-token-required", sopts.read_token_required,
                  "Require a bearer token (of any scope) for GET endpoints too, except /api/v1/health (posting and "
                  "triage always require one of their scope)");

  auto* token = app.add_subcommand(
      "token", "Manage tokens (stored as SHA-256 hashes). Scopes: upload posts runs, triage changes alerts' "
               "states, admin both; any token reads");
  token->require_subcommand(1);
  std::string tname;
  auto* tcreate = token->add_subcommand("create", "Create a token NAME and print it (shown only once)");
  tcreate->add_option("NAME", tname, "Token name")->required();
  std::string tscope = shaderwatch::to_string(shaderwatch::TokenScope::Upload);
  tcreate->add_option("--scope", tscope,
                      "What the token may do: upload (POST /api/v1/runs; for CI runners), triage (PATCH "
                      "/api/v1/alerts/ID; for people), admin (both); any scope may read. Tokens made before "
                      "scopes existed are admin")
      ->capture_default_str();
  tcreate->add_option("--db", db, db_help)->capture_default_str();
  auto* tlist = token->add_subcommand("list", "List tokens with their scopes, creation and revocation times");
  tlist->add_option("--db", db, db_help)->capture_default_str();
  auto* trevoke = token->add_subcommand("revoke", "Revoke the token NAME");
  trevoke->add_option("NAME", tname, "Token name")->required();
  trevoke->add_option("--db", db, db_help)->capture_default_str();

  std::string from, to;
  auto* migrate = app.add_subcommand(
      "migrate", "Copy every run, result, alert and token of one database into another, empty one (e.g. an SQLite "
                 "file into PostgreSQL); row counts are checked and nothing is written unless all of it is");
  migrate->add_option("--from", from, "The database to copy: " + db_help)->required();
  migrate->add_option("--to", to, "The database to fill (created and migrated if needed; must hold no runs): " + db_help)
      ->required();

  std::string url, tok, file;
  shaderwatch::upload::RunMeta meta;
  auto* post = app.add_subcommand("post", "Post a Google Benchmark JSON file as one run (one per device for "
                                          "shaderwatch-bench --device all: run id + -dev<N>); exit 1 on failure");
  post->add_option("--url", url, "Server base URL, e.g. http://127.0.0.1:8080")->required();
  post->add_option("--token", tok, "Bearer token")->envname("SHADERWATCH_TOKEN")->required();
  post->add_option("FILE", file, "Google Benchmark JSON (--benchmark_format=json or --benchmark_out)")
      ->required()->check(CLI::ExistingFile);
  post->add_option("--run-id", meta.run_id, "Client-chosen unique run id ([A-Za-z0-9._:@+-], max 128)")->required();
  post->add_option("--commit", meta.commit, "Commit the run measured")->required();
  post->add_option("--branch", meta.branch, "Branch (default: the server's main branch)");
  post->add_option("--merge-base", meta.merge_base,
                   "For a run on another branch: the main-branch commit it forked from (its verdict is judged against "
                   "main's level there)");
  post->add_option("--runner", meta.runner, "Runner (machine) name");
  post->add_option("--job-url", meta.job_url, "CI job URL");
  post->add_option("--started-at", meta.started_at, "Run start, ISO 8601 with a zone (default: the file's context.date, else now)");
  shaderwatch::upload::RetryPolicy retry;
  post->add_option("--attempts", retry.attempts,
                   "Tries in all when no answer comes or the server answers 5xx/429, waiting 1 s, 2 s, 4 s, ... "
                   "(at most 30 s) between them; the same run each time")
      ->check(CLI::Range(1, 100))->capture_default_str();

  CLI11_PARSE(app, argc, argv);

  try {
    if (serve->parsed()) {
      shaderwatch::StoreOptions so;
      so.db = db;
      so.main_branch = main_branch;
      so.gate_cpu_timings = gate_cpu_timings;
      so.max_db_mib = max_db_mib;
      return run_serve(so, sopts);
    }
    if (tcreate->parsed() || tlist->parsed() || trevoke->parsed()) {
      const auto scope = shaderwatch::parse_token_scope(tscope);
      if (tcreate->parsed() && !scope) {  // before the database is opened (or created)
        std::cerr << "error: --scope '" << tscope << "' is not one of upload, triage, admin" << std::endl;
        return 1;
      }
      shaderwatch::StoreOptions so;
      so.db = db;
      so.readers = 1;
      shaderwatch::Store store(so);
      if (tcreate->parsed()) {
        std::cout << store.tokens().create(tname, *scope) << std::endl;
        std::cerr << "token '" << tname << "' (scope " << tscope << ") created; it is shown only this once" << std::endl;
      } else if (tlist->parsed()) {
        for (const auto& t : store.tokens().list())
          std::cout << t.name << "\tscope " << shaderwatch::to_string(t.scope) << "\tcreated " << t.created_at << "\t"
                    << (t.revoked_at ? "revoked " + *t.revoked_at : std::string("active")) << "\n";
      } else {
        if (!store.tokens().revoke(tname)) {
          std::cerr << "error: no active token named '" << tname << "'" << std::endl;
          return 1;
        }
        std::cout << "revoked " << tname << std::endl;
      }
      return 0;
    }
    if (migrate->parsed()) {
      for (const auto& t : shaderwatch::copy_database(from, to, [](const std::string& line) {
             std::cerr << "migrate: " << line << std::endl;
           }))
        std::cout << t.table << "\t" << t.rows << "\n";
      return 0;
    }
    if (post->parsed()) {
      std::ifstream in(file, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      if (!in) {
        std::cerr << "error: cannot read " << file << std::endl;
        return 1;
      }
      // A document of several devices (shaderwatch-bench --device all) is posted as one run per device.
      const auto posted = shaderwatch::upload::post_runs_per_device(url, tok, ss.str(), meta, retry, [](const std::string& why) {
        std::cerr << "post: " << why << std::endl;
      });
      for (const auto& p : posted) {
        if (!p.result.ok) {
          std::cerr << "error: run " << p.run_id << ": " << p.result.error << std::endl;
          return 1;
        }
        std::cout << p.result.body << std::endl;
      }
      return 0;
    }
  } catch (const shaderwatch::ClientError& e) {
    std::cerr << "error: " << e.what() << (e.field.empty() ? "" : " (" + e.field + ")") << std::endl;
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
