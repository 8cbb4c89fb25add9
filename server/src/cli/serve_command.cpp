// shaderwatch-server serve: the HTTP API over one database until SIGINT or SIGTERM.
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <iostream>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <thread>

#include "cli/commands.h"
#include "http/http_server.h"
#include "service/store.h"

namespace shaderwatch::cli {

namespace {

// Retention while serving: at start, then every day, old runs lose their raw repetitions (storage/prune.h).
struct Retention {
  double after_days = 0;  // 0: never
  std::size_t keep_runs = 100;
};

int serve(const StoreOptions& so, const ServerOptions& opts, const Retention& keep) {
  // Block the stop signals in every thread; one thread waits for them and stops the server.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  Store store(so);
  HttpServer server(store, opts);
  const int port = server.bind();
  std::cout << "shaderwatch-server: listening on http://" << opts.bind << ":" << port
            << " (database " << store.location() << ", schema v" << store.schema_version() << ")" << std::endl;
  if (!so.gate_config.defaults.empty() || !so.gate_config.overrides.empty())
    std::cout << "shaderwatch-server: gate configuration: " << so.gate_config.defaults.size() << " default setting(s), "
              << so.gate_config.overrides.size() << " override(s) by branch and GPU" << std::endl;
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&set, &sig);
    std::cout << "shaderwatch-server: signal " << sig << ", stopping" << std::endl;
    server.stop();
  });
  std::mutex mu;
  std::condition_variable wake;
  bool stopping = false;
  std::thread pruner([&] {
    if (keep.after_days <= 0) return;
    std::unique_lock lk(mu);
    do {
      lk.unlock();
      try {
        const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
        const auto s = store.prune({now - static_cast<std::int64_t>(keep.after_days * 86400e3), keep.keep_runs},
                                   [](const std::string&) {});
        std::cout << "shaderwatch-server: pruned the raw rows of " << s.packs << " benchmarks in " << s.runs
                  << " runs older than " << keep.after_days << " days" << std::endl;
      } catch (const std::exception& e) {
        std::cerr << "shaderwatch-server: pruning failed (tried again tomorrow): " << e.what() << std::endl;
      }
      lk.lock();
    } while (!wake.wait_for(lk, std::chrono::hours(24), [&] { return stopping; }));
  });
  server.serve();
  // serve() also returns when the socket fails; make sure the waiter exits either way.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  {
    std::lock_guard lk(mu);
    stopping = true;
  }
  wake.notify_all();
  pruner.join();
  return 0;
}

}  // namespace

Command add_serve_command(CLI::App& app, std::string& db) {
  auto so = std::make_shared<StoreOptions>();
  auto sopts = std::make_shared<ServerOptions>();
  auto keep = std::make_shared<Retention>();
  auto* serve_app = app.add_subcommand("serve", "Serve the HTTP API");
  serve_app->add_option("--db", db, kDbHelp + "; created and migrated if needed")->envname("SHADERWATCH_DB")->capture_default_str();
  serve_app->add_option("--port", sopts->port, "TCP port (0: pick a free one and print it)")
      ->check(CLI::Range(0, 65535))->capture_default_str();
  serve_app->add_option("--bind", sopts->bind, "Address to listen on")->capture_default_str();
  serve_app->add_option("--max-body-bytes", sopts->max_body_bytes, "Largest request body accepted (413 above)")
      ->check(CLI::Range(static_cast<std::size_t>(1024), static_cast<std::size_t>(1) << 32))->capture_default_str();
  serve_app->add_option("--main-branch", so->main_branch,
                        "The baseline branch: its runs (and runs naming no branch) form levels, change points and alerts; "
                        "a run on any other branch is judged against it at the run's merge_base")
      ->check([](const std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); })
      ->capture_default_str();
  serve_app->add_flag("--gate-cpu-timings", so->gate_cpu_timings,
                      "Let the timings of a device of type cpu (lavapipe) fail verdicts too; by default such runs are judged "
                      "on correctness alone (on a shared runner their times move several-fold between runs)");
  serve_app
      ->add_option_function<std::string>(
          "--gate-config",
          [so](const std::string& path) {
            const auto text = read_text_file(path);
            if (!text) throw CLI::ValidationError("--gate-config", "'" + path + "' cannot be read");
            try {
              so->gate_config = analysis::parse_gate_config(*text);
            } catch (const std::invalid_argument& e) {
              throw CLI::ValidationError("--gate-config", "'" + path + "': " + e.what());
            }
          },
          "The single-run gate's parameters as JSON: {\"defaults\": {\"z\": 5.5}, \"overrides\": [{\"branch\": "
          "\"release/*\", \"gpu\": \"*H100*\", \"set\": {\"min_effect\": 0.5}}]}; each override whose shell patterns "
          "match a run's branch and GPU name applies over the defaults, in order, and the verdict's coverage line names it. "
          "Parameters:\n" + analysis::gate_parameter_list())
      ->type_name("FILE");
  serve_app->add_option("--max-db-mib", so->max_db_mib,
                        "SQLite only: refuse writes (507) once the file reaches this many MiB (default 0: until the disk "
                        "is full, which answers 507 too; on PostgreSQL a full disk answers 507 and quotas are the server's)")
      ->capture_default_str();
  serve_app->add_flag("--read-token-required", sopts->read_token_required,
                      "Require a bearer token (of any scope) for GET endpoints too, except /api/v1/health (posting and "
                      "triage always require one of their scope)");
  serve_app->add_option("--prune-after-days", keep->after_days,
                        "Each day, remove the raw repetitions of runs older than this, as `prune` does (0: keep everything)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  serve_app->add_option("--prune-keep-runs", keep->keep_runs,
                        "With --prune-after-days: the newest runs of each GPU that keep their raw rows whatever their age")
      ->capture_default_str();
  return {serve_app, [so, sopts, keep, &db] {
            so->db = db;
            return serve(*so, *sopts, *keep);
          }};
}

}  // namespace shaderwatch::cli
