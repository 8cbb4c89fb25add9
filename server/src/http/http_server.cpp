#include "http/http_server.h"

#include <httplib.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <csignal>
#include <iostream>
#include <unordered_map>

#include <sys/socket.h>

#include "http/connection_queue.h"
#include "http/growing_task_queue.h"
#include "http/lingering_close.h"
#include "http/own_sockets.h"
#include "http/pipelining_server.h"
#include "queries/query_helpers.h"
#include "render/run_report.h"
#include "render/api_json.h"
#include "shaderwatch/upload.h"
#include "http/web_assets.h"

namespace shaderwatch {

using nlohmann::json;

namespace {

std::string dump(const json& j) {
  // replace: never throw on odd bytes echoed from a query string.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void send_json(httplib::Response& res, int status, const json& j) {
  res.status = status;
  res.set_content(dump(j), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message,
                const std::string& field = {}) {
  json e = {{"message", message}};
  if (!field.empty()) e["field"] = field;
  send_json(res, status, {{"error", e}});
}

Params params_of(const httplib::Request& req) {
  Params p;
  for (const auto& [k, v] : req.params)
    if (!p.emplace(k, v).second) throw ClientError(400, "query parameter given more than once", k);
  return p;
}

std::int64_t id_of(const std::string& s, const char* field) {
  if (s.empty() || s.size() > 18) throw ClientError(400, "not a valid id", field);
  return std::stoll(s);  // the route regex admits digits only
}

// Connections served at once (idle, slow or busy); more wait for a free worker.
constexpr std::size_t kMaxWorkers = 512;
// A kept-alive connection that sends nothing for this long is closed, freeing its worker.
constexpr time_t kKeepAliveSeconds = 2;
// A request body must arrive within this (a 64 MiB upload needs 0.5 MB/s).
constexpr auto kBodyDeadline = std::chrono::seconds(120);
// What a 503 asks the client to wait before retrying (the upload client retries 503s).
constexpr int kRetryAfterSeconds = 5;

// The listening socket without SO_REUSEPORT (httplib sets it): with it, a second server on the same port
// started, and the kernel split connections between two databases.
void listen_socket_options(socket_t sock) {
  const int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
}

}  // namespace

struct HttpServer::Impl {
  Store& store;
  ServerOptions opts;
  PipeliningServer svr;  // httplib's, reading each connection through one stream
  int bound_port = 0;  // set by HttpServer::bind, before the task queue is made
  std::atomic<ConnectionQueue*> connections{nullptr};  // httplib's, made when it listens

  Impl(Store& s, ServerOptions o) : store(s), opts(std::move(o)) {}

  // What a request does, for the scope its token needs (TokenScope).
  enum class Act { Read, PostRun, Triage };
  static Act act_of(const httplib::Request& req) {
    if (req.method == "POST" && req.path == shaderwatch::upload::kRunsPath) return Act::PostRun;
    if (req.path == shaderwatch::upload::kUploadCheckPath) return Act::PostRun;
    if (req.method == "PATCH" && req.path.starts_with("/api/v1/alerts/")) return Act::Triage;
    return Act::Read;
  }

  // The token's name, or an error answer (401 without a valid token, 403 when its scope does not allow
  // `act`) and nullopt.
  std::optional<std::string> authorize(const httplib::Request& req, httplib::Response& res, Act act) {
    const std::string h = req.get_header_value("Authorization");
    const std::string prefix = "Bearer ";
    if (h.empty()) {
      res.set_header("WWW-Authenticate", "Bearer");
      send_error(res, 401, "missing bearer token (Authorization: Bearer <token>)", "Authorization");
      return std::nullopt;
    }
    if (h.compare(0, prefix.size(), prefix) != 0) {
      res.set_header("WWW-Authenticate", "Bearer");
      send_error(res, 401, "Authorization must be 'Bearer <token>'", "Authorization");
      return std::nullopt;
    }
    std::optional<TokenInfo> t;
    if (!guard(res, [&] { t = store.tokens().check(std::string_view(h).substr(prefix.size())); })) return std::nullopt;
    if (!t) {
      res.set_header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
      send_error(res, 401, "invalid or revoked token", "Authorization");
      return std::nullopt;
    }
    const bool allowed = act == Act::Read || (act == Act::PostRun ? may_post_runs(t->scope) : may_triage(t->scope));
    if (!allowed) {
      const std::string needs = act == Act::PostRun ? "posting a run needs scope upload or admin"
                                                     : "changing an alert needs scope triage or admin";
      res.set_header("WWW-Authenticate", "Bearer error=\"insufficient_scope\"");
      send_error(res, 403, needs + "; token '" + t->name + "' has scope " + to_string(t->scope), "Authorization");
      return std::nullopt;
    }
    return t->name;
  }

  // The dashboard's base URL for a report's or a verdict's links: ?dashboard= (an http(s) base URL) or, by default,
  // this server as the client reached it.
  std::string dashboard_base(const httplib::Request& req) {
    const Params q = params_of(req);
    allow_only(q, {"dashboard"});
    std::string base;
    if (auto d = opt(q, "dashboard")) {
      const bool http = d->starts_with("http://") || d->starts_with("https://");
      if (!http || d->size() > 512 || d->find_first_of(" \t\r\n\"'<>`") != std::string::npos)
        throw ClientError(400, "must be an http:// or https:// URL of at most 512 characters, without spaces or quotes",
                          "dashboard");
      base = *d;
    } else {
      // The Host header is the client's word: used only when it is a plain host[:port].
      const std::string host = req.get_header_value("Host");
      const bool plain = !host.empty() && host.size() <= 255 &&
                         host.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-:[]") ==
                             std::string::npos;
      base = "http://" + (plain ? host : opts.bind + ":" + std::to_string(opts.port));
    }
    while (base.ends_with('/')) base.pop_back();
    return base;
  }

  // The report file `file` of a run: {content type, text}, its links at dashboard_base.
  std::pair<const char*, std::string> run_report(const httplib::Request& req, const std::string& run_id,
                                                 const std::string& file) {
    report::RunReportInput in;
    in.dashboard = dashboard_base(req);
    in.run = store.queries().run(run_id);
    in.verdict = store.queries().verdict(run_id);
    in.improvements = store.queries().alerts({{"raised_by", run_id}, {"kind", "improvement"}, {"limit", "500"}}).alerts;
    if (file == "junit.xml") return {"application/xml; charset=utf-8", report::junit_xml(in)};
    if (file == "summary.md") return {"text/markdown; charset=utf-8", report::summary_markdown(in)};
    return {"text/csv; charset=utf-8", report::results_csv(in)};
  }

  // What a request must satisfy before any of its body is read: one Content-Length, not together with a
  // Transfer-Encoding (a request smuggling ambiguity), within --max-body-bytes, and JSON rather than a
  // multipart form. Returns false with the error answer set.
  bool body_headers_acceptable(const httplib::Request& req, httplib::Response& res) {
    const auto lengths = req.headers.equal_range("Content-Length");
    std::string length;
    for (auto it = lengths.first; it != lengths.second; ++it) {
      if (!length.empty() && it->second != length) {
        send_error(res, 400, "conflicting Content-Length headers", "Content-Length");
        return false;
      }
      length = it->second;
    }
    if (!length.empty() && req.has_header("Transfer-Encoding")) {
      send_error(res, 400, "both Content-Length and Transfer-Encoding", "Content-Length");
      return false;
    }
    if (!length.empty()) {
      const bool digits = length.size() <= 19 && length.find_first_not_of("0123456789") == std::string::npos;
      if (!digits) {
        send_error(res, 400, "not a byte count", "Content-Length");
        return false;
      }
      if (std::stoull(length) > opts.max_body_bytes) {
        send_error(res, 413, "request body of " + length + " bytes is over the server's limit of " +
                                 std::to_string(opts.max_body_bytes) + " (--max-body-bytes)", "Content-Length");
        return false;
      }
    }
    if (req.get_header_value("Content-Type").starts_with("multipart/")) {
      send_error(res, 415, "the body must be JSON (application/json), not a multipart form", "Content-Type");
      return false;
    }
    return true;
  }

  // Everything decided from the request line and headers, before any of the body is read: no body where
  // httplib would not read it (POST, PUT, PATCH and DELETE only: another method's body would be parsed
  // as the next request), the token where one is needed, the body's headers. False with the answer set.
  bool checks_before_body(const httplib::Request& req, httplib::Response& res) {
    const bool body_method = req.method == "POST" || req.method == "PUT" || req.method == "PATCH" || req.method == "DELETE";
    if (!body_method && declares_body(req)) {
      send_error(res, 400, "a " + req.method + " request carries no body", "Content-Length");
      return false;
    }
    const bool write = req.method != "GET" && req.method != "HEAD";
    // The dashboard's own files are public even where reads need a token: the page asks for one.
    const bool api = req.path.starts_with("/api/");
    const bool open = req.path == "/api/v1/health" || (!write && (!opts.read_token_required || !api));
    if (!open && !authorize(req, res, act_of(req))) return false;
    return !write || body_headers_acceptable(req, res);
  }

  // The request body, read here rather than by httplib so that the limit holds for every transfer
  // encoding (httplib read chunked bodies whole) and a body trickling in is cut off at kBodyDeadline.
  // nullopt with the error answer set when it is too large, too slow or malformed.
  std::optional<std::string> read_body(const httplib::Request& req, const httplib::ContentReader& reader,
                                       httplib::Response& res) {
    std::string body;
    // Its declared length (already checked against the limit) at once: growing by doubling held up to twice it.
    if (req.has_header("Content-Length"))
      body.reserve(std::min<std::size_t>(req.get_header_value<std::uint64_t>("Content-Length"), opts.max_body_bytes));
    bool too_large = false, too_slow = false;
    const auto deadline = std::chrono::steady_clock::now() + kBodyDeadline;
    const bool ok = reader([&](const char* data, std::size_t n) {
      if (body.size() + n > opts.max_body_bytes) return !(too_large = true);
      if (std::chrono::steady_clock::now() > deadline) return !(too_slow = true);
      body.append(data, n);
      return true;
    });
    if (ok) return body;
    if (too_large)
      send_error(res, 413, "request body over the server's limit of " + std::to_string(opts.max_body_bytes) +
                               " bytes (--max-body-bytes)");
    else if (too_slow)
      send_error(res, 408, "request body not received within " + std::to_string(kBodyDeadline.count()) + " s");
    else
      send_error(res, 400, "request body could not be read (malformed chunked encoding or a closed connection)");
    return std::nullopt;
  }

  // Wraps a handler: auth for reads when configured, ClientError to 4xx, anything else to 500.
  template <class F>
  httplib::Server::Handler read(F f) {
    return [this, f](const httplib::Request& req, httplib::Response& res) {
      guard(res, [&] { send_json(res, 200, f(req)); });
    };
  }
  // Runs f; whether it ran without error, the error answer set otherwise. A database connection that broke under it
  // and is live again runs it once more (every handler is safe to repeat: reads, and writes that are idempotent or
  // rolled back whole); a database still unreachable is a 503 the client may retry.
  template <class F>
  static bool guard(httplib::Response& res, F f) {
    for (int attempt = 1;; ++attempt) {
      try {
        f();
        return true;
      } catch (const ClientError& e) {
        send_error(res, e.status, e.what(), e.field);
      } catch (const StorageFull& e) {
        std::cerr << "shaderwatch-server: " << e.what() << "\n";
        send_error(res, 507, std::string(e.what()) + " (no room on its disk, or --max-db-mib reached): nothing was stored");
      } catch (const DatabaseUnavailable& e) {
        if (e.reconnected && attempt == 1) continue;
        std::cerr << "shaderwatch-server: " << e.what() << "\n";
        res.set_header("Retry-After", std::to_string(kRetryAfterSeconds));
        send_error(res, 503, std::string("the database is unavailable, nothing was done: ") + e.what());
      } catch (const std::exception& e) {
        std::cerr << "shaderwatch-server: internal error: " << e.what() << "\n";
        send_error(res, 500, std::string("internal error: ") + e.what());
      }
      return false;
    }
  }

  // The request on this thread's connection has its headers: no header deadline while it is served.
  void headers_in() {
    if (auto* q = connections.load()) q->headers_in(current_connection());
  }

  // Answers are compressed with gzip, never brotli: Debian's cpp-httplib compresses brotli at quality 11,
  // which took 6.2 s for a 10,000-point series (3.5 MB) that gzip sends in 0.18 s, and every browser asks
  // for brotli. httplib passes this same (non-const) Request on to its compression step, so the
  // request's Accept-Encoding is narrowed to what the server offers.
  static void offer_gzip_only(const httplib::Request& req) {
    auto& headers = const_cast<httplib::Request&>(req).headers;
    const auto it = headers.find("Accept-Encoding");
    if (it == headers.end()) return;
    const bool gzip = it->second.find("gzip") != std::string::npos;
    headers.erase("Accept-Encoding");
    if (gzip) headers.emplace("Accept-Encoding", "gzip");
  }

  // Whether httplib will send this answer gzipped: the request accepts it (offer_gzip_only narrowed the header)
  // and the type is one httplib 0.11 compresses (text/* but event streams, JavaScript, JSON, XML, SVG).
  static bool gzip_answer(const httplib::Request& req, std::string_view type) {
    if (req.get_header_value("Accept-Encoding") != "gzip") return false;
    return (type.starts_with("text/") && type != "text/event-stream") || type == "image/svg+xml" ||
           type == "application/javascript" || type == "application/json" || type == "application/xml" ||
           type == "application/xhtml+xml" || type == "application/protobuf";
  }
  // A quoted entity tag for the identity or the gzip representation.
  static std::string representation_etag(std::string_view tag, bool gzip) {
    std::string t(tag);
    if (gzip && t.size() >= 2) t.insert(t.size() - 1, "-gzip");
    return t;
  }
  // If-None-Match: "*" or a comma-separated list of tags, each maybe weak (W/); weak comparison (RFC 9110 13.1.2).
  static bool none_match_hits(std::string_view header, std::string_view etag) {
    std::size_t pos = 0;
    while (pos < header.size()) {
      std::size_t end = header.find(',', pos);
      if (end == std::string_view::npos) end = header.size();
      std::string_view tag = header.substr(pos, end - pos);
      while (!tag.empty() && (tag.front() == ' ' || tag.front() == '\t')) tag.remove_prefix(1);
      while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.remove_suffix(1);
      if (tag.starts_with("W/")) tag.remove_prefix(2);
      if (tag == "*" || tag == etag) return true;
      pos = end + 1;
    }
    return false;
  }

  // The dashboard's files by URL path; "/" is its page.
  void serve_dashboard() {
    static const auto by_path = [] {
      std::unordered_map<std::string_view, const web::Asset*> m;
      for (const auto& a : web::assets()) m.emplace(a.path, &a);
      return m;
    }();
    svr.Get(R"(/|/(?!api/)[A-Za-z0-9_./-]{1,200})", [](const httplib::Request& req, httplib::Response& res) {
      const auto it = by_path.find(req.path == "/" ? std::string_view("/index.html") : std::string_view(req.path));
      if (it == by_path.end()) {
        send_error(res, 404, "no such page or file");
        return;
      }
      const web::Asset& a = *it->second;
      // The ETag is a content hash: a browser revalidates (no-cache) and gets a bodiless 304 until
      // the server is rebuilt with other files. The gzip representation is another entity with its own tag.
      const std::string etag = representation_etag(a.etag, gzip_answer(req, a.content_type));
      res.set_header("ETag", etag);
      res.set_header("Cache-Control", "no-cache");
      if (none_match_hits(req.get_header_value("If-None-Match"), etag)) {
        res.status = 304;
        return;
      }
      res.set_content(a.body.data(), a.body.size(), std::string(a.content_type));
    });
  }

  void routes() {
    // On every answer: the page runs only its own files (no inline script, nothing from elsewhere),
    // and no answer is sniffed into another type.
    svr.set_default_headers({{"Content-Security-Policy",
                              "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none';"
                              " form-action 'self'"},
                             {"X-Content-Type-Options", "nosniff"},
                             // Any answer may be sent gzipped or not, as the request's Accept-Encoding says.
                             {"Vary", "Accept-Encoding"},
                             {"Referrer-Policy", "no-referrer"}});
    svr.set_payload_max_length(opts.max_body_bytes);
    svr.set_keep_alive_max_count(1000);  // pollers and uploaders reuse their connection
    svr.set_keep_alive_timeout(kKeepAliveSeconds);
    svr.new_task_queue = [this] {
      auto* q = new ConnectionQueue(std::make_unique<GrowingTaskQueue>(kMaxWorkers), bound_port);
      connections.store(q);
      return q;
    };
    svr.set_socket_options(listen_socket_options);
    // Headers and body go out in separate writes: without TCP_NODELAY, Nagle plus the client's
    // delayed ACK adds ~40 ms to every answer on a kept-alive connection.
    svr.set_tcp_nodelay(true);
    // Errors httplib answers by itself (413, 404, 400) get the JSON error shape too.
    svr.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (!res.body.empty()) return;
      std::string msg = "HTTP error " + std::to_string(res.status);
      if (res.status == 400) msg = "malformed HTTP request";
      if (res.status == 413) msg = "request body larger than the server's limit (--max-body-bytes)";
      if (res.status == 404) msg = "no such endpoint";
      send_error(res, res.status, msg);
    });
    svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
      std::string what = "unknown";
      try {
        if (ep) std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      send_error(res, 500, "internal error: " + what);
    });

    // Writes (and reads, when configured) are authorised, and a body's headers checked, before the body
    // is read, so an unauthenticated client cannot make the server read --max-body-bytes.
    svr.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      headers_in();
      offer_gzip_only(req);
      return checks_before_body(req, res) ? httplib::Server::HandlerResponse::Unhandled
                                          : httplib::Server::HandlerResponse::Handled;
    });
    // "Expect: 100-continue" is answered only once the token and the size are known to be good.
    svr.set_expect_100_continue_handler([this](const httplib::Request& req, httplib::Response& res) {
      headers_in();
      return checks_before_body(req, res) ? 100 : res.status;
    });
    // An error answer to a request with a body (maybe unread), or to one httplib could not parse, closes the
    // connection: nothing after it is read as a request (lingering_close.hpp).
    svr.set_post_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      // An Expect without the body sent yet counts: the body may follow the answer. A request httplib could
      // not parse (its own 400 or 414) leaves the rest of its bytes unread too.
      const bool unparsed = req.remote_port < 0;
      if (res.status >= 400 && (unparsed || declares_body(req) || req.has_header("Expect"))) mark_close(res);
    });
    // Called once the answer is written: the next request's headers are due from now.
    svr.set_logger([this](const httplib::Request&, const httplib::Response& res) {
      close_if_marked(res);
      if (auto* q = connections.load()) q->answered(current_connection());
    });
    svr.Post(std::string(shaderwatch::upload::kRunsPath), [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
      auto who = authorize(req, res, Act::PostRun);
      if (!who) return;
      const auto body = read_body(req, reader, res);
      if (!body) return;
      guard(res, [&] {
        auto r = store.ingest(*body, *who);
        send_json(res, r.created ? 201 : 200, r.body);
      });
    });
    // A client (shaderwatch-bench --post) asks before its work whether its token may post runs.
    svr.Get(std::string(shaderwatch::upload::kUploadCheckPath), [this](const httplib::Request& req, httplib::Response& res) {
      if (auto who = authorize(req, res, Act::PostRun)) send_json(res, 200, {{"token", *who}, {"may_post_runs", true}});
    });
    // Liveness and readiness in one: 200 while the database answers, 503 (with Retry-After) while it does not, so a
    // load balancer or systemd's watchdog sends no traffic to a server whose database is down.
    svr.Get("/api/v1/health", [this](const httplib::Request&, httplib::Response& res) {
      guard(res, [&] {
        store.ping();
        send_json(res, 200, {{"status", "ok"}, {"database", "ok"}});
      });
    });
    svr.Get("/api/v1/gpus", read([this](const auto& req) { return store.queries().gpus(params_of(req)); }));
    svr.Get("/api/v1/drivers", read([this](const auto& req) { return store.queries().drivers(params_of(req)); }));
    svr.Get("/api/v1/benchmarks", read([this](const auto& req) { return store.queries().benchmarks(params_of(req)); }));
    svr.Get("/api/v1/runs", read([this](const auto& req) { return store.queries().runs(params_of(req)); }));
    svr.Get(R"(/api/v1/runs/([A-Za-z0-9._:@+-]+)/verdict)", read([this](const auto& req) {
              const std::string base = dashboard_base(req);
              return verdict_json(store.queries().verdict(req.matches[1]), base);
            }));
    // A run's report for CI (render/run_report.h): one rendering, the same text for every client.
    svr.Get(R"(/api/v1/runs/([A-Za-z0-9._:@+-]+)/(junit\.xml|summary\.md|results\.csv))",
            [this](const httplib::Request& req, httplib::Response& res) {
              guard(res, [&] {
                const std::string run_id = req.matches[1], file = req.matches[2];
                const auto [type, text] = run_report(req, run_id, file);
                res.status = 200;
                res.set_content(text, type);
              });
            });
    svr.Get(R"(/api/v1/runs/([A-Za-z0-9._:@+-]+)/results)", read([this](const auto& req) {
              return store.queries().run_results(req.matches[1], params_of(req));
            }));
    svr.Get(R"(/api/v1/runs/([A-Za-z0-9._:@+-]+))", read([this](const auto& req) {
              if (!params_of(req).empty()) throw ClientError(400, "takes no query parameters");
              return store.queries().run(req.matches[1]);
            }));
    svr.Get("/api/v1/series", read([this](const auto& req) { return store.queries().series_list(params_of(req)); }));
    svr.Get(R"(/api/v1/series/(\d+))", read([this](const auto& req) {
              return store.queries().series(id_of(req.matches[1], "id"), params_of(req));
            }));
    svr.Get("/api/v1/alerts", read([this](const auto& req) { return store.queries().alerts(params_of(req)); }));
    svr.Get(R"(/api/v1/alerts/(\d+))", read([this](const auto& req) {
              return store.queries().alert(id_of(req.matches[1], "id"));
            }));
    svr.Patch(R"(/api/v1/alerts/(\d+))", [this](const httplib::Request& req, httplib::Response& res,
                                                const httplib::ContentReader& reader) {
      auto who = authorize(req, res, Act::Triage);
      if (!who) return;
      const auto body = read_body(req, reader, res);
      if (!body) return;
      guard(res, [&] { send_json(res, 200, store.set_alert_state(id_of(req.matches[1], "id"), *body, *who)); });
    });
    svr.Get("/api/v1/compare", read([this](const auto& req) { return store.queries().compare(params_of(req)); }));
    svr.Get("/api/v1/rankings", read([this](const auto& req) { return store.queries().rankings(params_of(req)); }));
    svr.Get("/api/v1/summary", read([this](const auto& req) { return store.queries().summary(params_of(req)); }));
    svr.Get("/api/v1/correctness", read([this](const auto& req) { return store.queries().correctness(params_of(req)); }));
    svr.Get("/api/v1/vocabulary", read([this](const auto& req) {
              if (!params_of(req).empty()) throw ClientError(400, "takes no query parameters");
              return store.queries().vocabulary();
            }));
    serve_dashboard();
  }
};

HttpServer::HttpServer(Store& store, ServerOptions opts)
    : impl_(std::make_unique<Impl>(store, std::move(opts))) {
  // httplib writes to sockets without MSG_NOSIGNAL: a client that hangs up mid-answer would kill
  // the whole process with SIGPIPE. A server has no use for SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  impl_->routes();
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::bind() {
  if (impl_->opts.port == 0) {
    port_ = impl_->svr.bind_to_any_port(impl_->opts.bind);
  } else {
    port_ = impl_->svr.bind_to_port(impl_->opts.bind, impl_->opts.port) ? impl_->opts.port : -1;
  }
  if (port_ <= 0) {
    const int err = errno;
    throw std::runtime_error("cannot listen on " + impl_->opts.bind + ":" + std::to_string(impl_->opts.port) + ": " +
                             std::strerror(err) + (err == EADDRINUSE ? " (is another server on that port?)" : ""));
  }
  impl_->bound_port = port_;
  // httplib listens with a backlog of 5: a burst of clients connecting at once had SYNs dropped and
  // waited 1-3 s for retransmits. listen() again widens it.
  if (const int fd = listening_socket(port_); fd >= 0) ::listen(fd, SOMAXCONN);
  return port_;
}

void HttpServer::serve() { impl_->svr.listen_after_bind(); }

int HttpServer::start() {
  const int p = bind();
  thread_ = std::thread([this] { serve(); });
  // stop() only interrupts a server that is running, so wait for the accept loop.
  while (!impl_->svr.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return p;
}

void HttpServer::stop() {
  impl_->svr.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace shaderwatch
