// The HTTP layer under clients that misbehave, over raw sockets on 127.0.0.1: idle and slow
// connections, early answers with the body unread, bodies over the limit in every transfer encoding,
// Expect: 100-continue, lying headers, a second server on the same port. Each case names the finding
// of issue 13 it covers; every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "raw_connection.h"
#include "test_util.h"

namespace {

using namespace std::chrono_literals;
using swt::RawConnection;
using nlohmann::json;

std::string small_run(const std::string& id) {
  return swt::wrap(swt::make_doc({}, {{"fam/var/1/hot", {1000, 1010, 990}}}).dump(), id, "c1");
}

std::string post_request(const std::string& body, const std::string& token, const std::string& extra = "") {
  return swt::cat("POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
                  token.empty() ? std::string() : swt::cat("Authorization: Bearer ", token, "\r\n"), extra,
                  "Content-Length: ", std::to_string(body.size()), "\r\n\r\n", body);
}

int runs_stored(const swt::TestServer& s) { return static_cast<int>(s.get("/api/v1/runs")["runs"].size()); }

// Finding 1: with httplib's fixed pool of 8 workers, 8 idle sockets delayed health by 4.7 s and 64
// stopped it; 8 slowloris connections blocked every other client.
TEST(HttpHardening, IdleAndSlowConnectionsLeaveTheServerAnswering) {
  swt::TempDir dir;
  swt::TestServer s(dir.db("idle.db"));
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 64; ++i) held.push_back(std::make_unique<RawConnection>(s.port));  // idle: send nothing
  for (int i = 0; i < 16; ++i) {  // slowloris: a request that never finishes its headers
    held.push_back(std::make_unique<RawConnection>(s.port));
    held.back()->send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\n");
  }
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 64; i < held.size(); ++i) held[i]->send("X-Slow: 1\r\n");
    RawConnection probe(s.port);
    ASSERT_TRUE(probe.send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    // Answered at once, well inside the 1 s the issue asks for (measured: about a millisecond); the
    // bound is loose for a loaded CI machine, and the old server never answered within it.
    const std::string answer = probe.receive(3000ms);
    EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << "round " << round << ": " << answer;
    std::this_thread::sleep_for(300ms);
  }
}

// Reliability II, finding 11: a client trickling one header byte a second was never cut off (httplib's read timeout
// restarts with each byte), and past 512 such connections health went unanswered. Headers are due within 10 s of
// the accept (ConnectionQueue::kFirstHeadersDue), and within 12 s of the previous answer on a kept-alive connection.
TEST(HttpHardening, AClientTricklingItsHeadersIsCutOff) {
  swt::TempDir dir;
  swt::TestServer s(dir.db("trickle.db"));
  RawConnection slow(s.port), kept(s.port);
  ASSERT_TRUE(slow.send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\n"));
  ASSERT_TRUE(kept.send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(kept.receive(3000ms).rfind("HTTP/1.1 200", 0), 0u);
  ASSERT_TRUE(kept.send("GET /api/v1/health HTTP/1.1\r\n"));  // its next request trickles too
  const auto start = std::chrono::steady_clock::now();
  bool slow_cut = false, kept_cut = false;
  while (std::chrono::steady_clock::now() - start < 30s && !(slow_cut && kept_cut)) {
    slow_cut = slow_cut || !slow.send("X");
    kept_cut = kept_cut || !kept.send("X");
    std::this_thread::sleep_for(500ms);
  }
  const auto took = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start);
  EXPECT_TRUE(slow_cut) << "a new connection's headers trickled for " << took.count() << " s";
  EXPECT_TRUE(kept_cut) << "a kept-alive connection's next headers trickled for " << took.count() << " s";
  // A client that sends its request at once is served all along.
  RawConnection probe(s.port);
  ASSERT_TRUE(probe.send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(probe.receive(3000ms).rfind("HTTP/1.1 200", 0), 0u);
}

// Finding 2: the 401 was sent before the body was read and the connection kept alive, so the body
// (arriving 0.3 s late) was parsed as the next request, and a valid request after it was lost.
TEST(HttpHardening, AnEarlyAnswerClosesTheConnectionSoNoBodyIsReadAsARequest) {
  swt::TempDir dir;
  swt::TestServer s(dir.db("desync.db"));
  const std::string smuggled = "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
  RawConnection c(s.port);
  ASSERT_TRUE(c.send(swt::cat("POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
                              "Content-Length: ", std::to_string(smuggled.size()), "\r\n\r\n")));
  std::this_thread::sleep_for(300ms);
  c.send(smuggled);                             // the unauthenticated request's body
  c.send(post_request(small_run("after-401"), s.token));  // then a valid request on the same connection
  const std::string answers = c.receive(3000ms);
  EXPECT_EQ(answers.rfind("HTTP/1.1 401", 0), 0u) << answers;
  EXPECT_NE(answers.find("Connection: close"), std::string::npos) << answers;
  EXPECT_EQ(swt::count_of(answers, "HTTP/1.1 "), 1u) << "the body was answered as a request: " << answers;
  EXPECT_TRUE(c.closed());
  EXPECT_EQ(runs_stored(s), 0) << "nothing sent after the closing answer is executed";

  // The client that sends its next request on a new connection is served.
  RawConnection again(s.port);
  again.send(post_request(small_run("after-401"), s.token, "Connection: close\r\n"));
  EXPECT_EQ(again.receive(5000ms).rfind("HTTP/1.1 201", 0), 0u);
  EXPECT_EQ(runs_stored(s), 1);
}

// Issue 29, finding 8: requests sent before the previous answer (pipelining) were read through a stream that died
// with the first request: GET+POST+GET in one write got one answer, and the POST never ran.
TEST(HttpHardening, PipelinedRequestsAreEachAnsweredInOrder) {
  swt::TempDir dir;
  swt::TestServer s(dir.db("pipelined.db"));
  RawConnection c(s.port);
  ASSERT_TRUE(c.send(swt::cat("GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n",
                              post_request(small_run("pipelined"), s.token),
                              "GET /api/v1/runs/no-such-run HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")));
  const std::string answers = c.receive(5000ms);
  EXPECT_EQ(swt::count_of(answers, "HTTP/1.1 "), 3u) << answers;
  const std::size_t ok = answers.find("HTTP/1.1 200"), created = answers.find("HTTP/1.1 201"),
                    missing = answers.find("HTTP/1.1 404");
  EXPECT_LT(ok, created) << answers;
  EXPECT_LT(created, missing) << answers;
  EXPECT_NE(missing, std::string::npos) << answers;
  EXPECT_TRUE(c.closed()) << "the last request asked to close";
  EXPECT_EQ(runs_stored(s), 1) << "the pipelined POST ran";
}

// httplib reads no body for GET, HEAD or OPTIONS: a body sent with one was parsed as the next request.
TEST(HttpHardening, ABodyOnAGetIsRefusedNotReadAsARequest) {
  swt::TempDir dir;
  swt::TestServer s(dir.db("get-body.db"));
  const std::string smuggled = swt::cat("POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ", s.token,
                                        "\r\nContent-Type: application/json\r\nContent-Length: ");
  const std::string run = small_run("smuggled");
  const std::string body = swt::cat(smuggled, std::to_string(run.size()), "\r\n\r\n", run);
  for (const char* method : {"GET", "OPTIONS"}) {
    RawConnection c(s.port);
    c.send(swt::cat(method, " /api/v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: ", std::to_string(body.size()),
                    "\r\n\r\n", body));
    const std::string answers = c.receive(3000ms);
    EXPECT_EQ(answers.rfind("HTTP/1.1 400", 0), 0u) << method << ": " << answers;
    EXPECT_EQ(swt::count_of(answers, "HTTP/1.1 "), 1u) << method << ": the body was answered as a request: " << answers;
    EXPECT_TRUE(c.closed()) << method;
  }
  EXPECT_EQ(runs_stored(s), 0) << "the smuggled POST was not executed";
}

// A request httplib itself cannot parse gets its 400 or 414 before the server knows the client's address;
// the rest of its bytes (here a request hidden in its body) must not be read as a request either.
TEST(HttpHardening, AnUnparsableRequestClosesItsConnection) {
  swt::TempDir dir;
  swt::TestServer s(dir.db("unparsable.db"));
  const std::string hidden = "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string heads[] = {
      swt::cat("POST /api/v1/runs HTTP/9.9\r\nHost: x\r\nContent-Length: ", std::to_string(hidden.size()), "\r\n\r\n"),
      swt::cat("FOO /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Length: ", std::to_string(hidden.size()), "\r\n\r\n"),
      swt::cat("POST /api/v1/runs HTTP/1.1\r\nX-Long: ", std::string(9000, 'a'), "\r\nContent-Length: ",
               std::to_string(hidden.size()), "\r\n\r\n"),
      swt::cat("GET /", std::string(9000, 'a'), " HTTP/1.1\r\nHost: x\r\n\r\n"),
  };
  for (const auto& head : heads) {
    RawConnection c(s.port);
    c.send(head);
    std::this_thread::sleep_for(300ms);
    c.send(hidden);
    const std::string answers = c.receive(3000ms);
    const std::string shown = answers.substr(0, 120);
    EXPECT_TRUE(answers.rfind("HTTP/1.1 400", 0) == 0 || answers.rfind("HTTP/1.1 414", 0) == 0) << shown;
    EXPECT_EQ(swt::count_of(answers, "HTTP/1.1 "), 1u) << head.substr(0, 40) << ": " << answers;
    EXPECT_TRUE(c.closed()) << head.substr(0, 40);
  }
}

// Finding 3: a chunked body was read whole whatever --max-body-bytes said (2.5 MB stored under 1 MiB,
// 200 MiB read into memory); a 4 GiB Content-Length held a worker while its bytes trickled in.
TEST(HttpHardening, TheBodyLimitHoldsForChunkedBodiesAndHugeLengths) {
  swt::TempDir dir;
  shaderwatch::ServerOptions o;
  o.max_body_bytes = 1 << 20;
  swt::TestServer s(dir.db("limit.db"), o);
  {
    RawConnection c(s.port);
    ASSERT_TRUE(c.send(swt::cat("POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ", s.token,
                                "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")));
    const std::string chunk(64 * 1024, ' ');
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
    int sent = 0;
    while (sent < 40 && c.send(swt::cat(size, chunk, "\r\n"))) ++sent;  // 2.5 MB unless cut off
    const std::string answer = c.receive(3000ms);
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer.substr(0, 300);
    EXPECT_NE(answer.find("--max-body-bytes"), std::string::npos);
  }
  {
    RawConnection c(s.port);
    ASSERT_TRUE(c.send(swt::cat("POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ", s.token,
                                "\r\nContent-Type: application/json\r\nContent-Length: 4294967296\r\n\r\n{")));
    const auto start = std::chrono::steady_clock::now();
    const std::string answer = c.receive(3000ms);
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
    EXPECT_TRUE(c.closed()) << "the connection is not kept for the rest of the 4 GiB";
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2500ms);
  }
  EXPECT_EQ(runs_stored(s), 0);
  // Within the limit, chunked is fine.
  RawConnection ok(s.port);
  const std::string body = small_run("chunked");
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", body.size());
  ok.send(swt::cat("POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ", s.token,
                   "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n", size,
                   body, "\r\n0\r\n\r\n"));
  EXPECT_EQ(ok.receive(5000ms).rfind("HTTP/1.1 201", 0), 0u);
}

// Finding 3: "Expect: 100-continue" was answered 100 before the token and the size were checked.
TEST(HttpHardening, ContinueComesOnlyAfterTheTokenAndTheSizeAreChecked) {
  swt::TempDir dir;
  shaderwatch::ServerOptions o;
  o.max_body_bytes = 1 << 20;
  swt::TestServer s(dir.db("expect.db"), o);
  const auto head = [&](const std::string& token, std::size_t length) {
    return swt::cat("POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n",
                    token.empty() ? std::string() : swt::cat("Authorization: Bearer ", token, "\r\n"),
                    "Content-Length: ", std::to_string(length), "\r\n\r\n");
  };
  {
    RawConnection c(s.port);
    c.send(head("", 100));
    const std::string answer = c.receive(2000ms);
    EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0u) << answer;
    EXPECT_EQ(answer.find("100 Continue"), std::string::npos);
  }
  {
    RawConnection c(s.port);
    c.send(head(s.token, 2u << 20));
    EXPECT_EQ(c.receive(2000ms).rfind("HTTP/1.1 413", 0), 0u);
  }
  {  // an open route needs no token, Expect or not
    RawConnection c(s.port);
    c.send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n");
    const std::string answer = c.receive(2000ms);
    EXPECT_EQ(answer.rfind("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200", 0), 0u) << answer;
  }
  RawConnection c(s.port);
  const std::string body = small_run("continued");
  c.send(head(s.token, body.size()));
  EXPECT_EQ(c.receive(1000ms).rfind("HTTP/1.1 100 Continue", 0), 0u);
  c.send(body);
  EXPECT_EQ(c.receive(5000ms).rfind("HTTP/1.1 201", 0), 0u);
}

// Findings 3 and 7: headers that contradict each other, and bodies that are not JSON.
TEST(HttpHardening, ContradictoryLengthsAndFormBodiesAreRefusedByName) {
  swt::TempDir dir;
  swt::TestServer s(dir.db("headers.db"));
  const std::string body = small_run("lying");
  const std::pair<std::string, std::string> cases[] = {
      {swt::cat("Content-Length: ", std::to_string(body.size()), "\r\nContent-Length: 5\r\n"), "HTTP/1.1 400"},
      {swt::cat("Content-Length: ", std::to_string(body.size()), "\r\nTransfer-Encoding: chunked\r\n"), "HTTP/1.1 400"},
      {swt::cat("Content-Length: ", std::to_string(body.size()), "\r\nContent-Type: multipart/form-data\r\n"), "HTTP/1.1 415"},
  };
  for (const auto& [headers, want] : cases) {
    RawConnection c(s.port);
    c.send(swt::cat("POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ", s.token, "\r\n", headers, "\r\n",
                    body));
    const std::string answer = c.receive(3000ms);
    EXPECT_EQ(answer.rfind(want, 0), 0u) << headers << "\n" << answer;
    EXPECT_TRUE(c.closed()) << headers;
  }
  EXPECT_EQ(runs_stored(s), 0);
  // A form-urlencoded body over 8 KiB was a 413 blaming --max-body-bytes; it is simply not JSON.
  auto c = s.client();
  auto form = c->Post("/api/v1/runs", {{"Authorization", "Bearer " + s.token}}, std::string(9000, 'a'),
                      "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 400) << form->body;
  EXPECT_EQ(form->body.find("max-body-bytes"), std::string::npos) << form->body;
}

// Finding 4: httplib set SO_REUSEPORT, so a second server on the port started and the kernel split the
// connections between two databases.
TEST(HttpHardening, ASecondServerOnAPortInUseIsRefused) {
  swt::TempDir dir;
  swt::TestServer first(dir.db("first.db"));
  shaderwatch::StoreOptions so;
  so.db = dir.db("second.db");
  shaderwatch::Store store(so);
  shaderwatch::ServerOptions o;
  o.port = first.port;
  shaderwatch::HttpServer second(store, o);
  try {
    second.bind();
    ADD_FAILURE() << "a second server bound port " << first.port;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Address already in use"), std::string::npos) << e.what();
  }
}

// Finding 5: a run's raw rows came back in one answer (50 MB for 200,000 rows). They are paged.
TEST(HttpHardening, ARunsRowsArePagedWithABoundedPageSize) {
  swt::TempDir dir;
  swt::TestServer s(dir.db("pages.db"));
  std::vector<std::pair<std::string, std::vector<double>>> benches;
  for (int i = 0; i < 500; ++i) benches.push_back({swt::cat("fam/v", std::to_string(i), "/1/hot"), {1000, 1010, 990, 1005, 995}});
  ASSERT_EQ(s.post(swt::wrap(swt::make_doc({}, benches, false).dump(), "big", "c1"))->status, 201);
  const auto first = s.get("/api/v1/runs/big/results");
  EXPECT_EQ(first["results"].size(), 1000u);
  EXPECT_EQ(first["next_offset"], 1000);
  std::set<std::int64_t> seen;
  json page = first;
  for (int pages = 0; pages < 10; ++pages) {
    for (const auto& r : page["results"]) EXPECT_TRUE(seen.insert(r["index"].get<std::int64_t>()).second);
    if (page["next_offset"].is_null()) break;
    page = s.get(swt::cat("/api/v1/runs/big/results?limit=1000&offset=", std::to_string(page["next_offset"].get<int>())));
  }
  EXPECT_EQ(seen.size(), 2500u) << "every row once";
  s.get("/api/v1/runs/big/results?limit=10001", 400);
  EXPECT_EQ(s.get("/api/v1/runs/big/results?run_type=iteration&limit=7&offset=2495")["results"].size(), 5u);
}

}  // namespace

namespace {

// Finding 7: a full disk was a 500. It is 507, nothing is half stored, and reads go on. The disk is
// stood in for by --max-db-mib (SQLite's max_page_count gives the same SQLITE_FULL).
TEST(HttpHardening, AFullDatabaseIs507AndLosesNothingStored) {
  if (swt::on_postgres()) GTEST_SKIP() << "--max-db-mib limits an SQLite file (PostgreSQL refuses it: next test)";
  swt::TempDir dir;
  shaderwatch::StoreOptions so;
  so.db = dir.db("full.db");
  so.max_db_mib = 1;
  shaderwatch::Store store(so);
  shaderwatch::HttpServer http(store, {"127.0.0.1", 0});
  const int port = http.start();
  const std::string token = store.tokens().create("filler", shaderwatch::TokenScope::Upload);
  httplib::Client c("127.0.0.1", port);
  std::vector<std::pair<std::string, std::vector<double>>> benches;
  for (int i = 0; i < 200; ++i) benches.push_back({swt::cat("fam/v", std::to_string(i), "/1/hot"), {1000, 1010, 990}});
  int stored = 0, full = 0;
  std::string message;
  for (int run = 0; run < 100 && full == 0; ++run) {
    auto r = c.Post("/api/v1/runs", {{"Authorization", "Bearer " + token}},
                    swt::wrap(swt::make_doc({}, benches, false).dump(), swt::cat("r", std::to_string(run)), "c1",
                              swt::iso_at(run)),
                    "application/json");
    ASSERT_TRUE(r);
    if (r->status == 201) ++stored;
    if (r->status == 507) ++full, message = r->body;
    ASSERT_TRUE(r->status == 201 || r->status == 507) << r->status << " " << r->body;
  }
  EXPECT_EQ(full, 1) << "1 MiB never filled";
  EXPECT_GT(stored, 0);
  EXPECT_NE(message.find("nothing was stored"), std::string::npos) << message;
  auto runs = c.Get("/api/v1/runs?limit=1000");
  ASSERT_TRUE(runs);
  EXPECT_EQ(json::parse(runs->body)["runs"].size(), static_cast<std::size_t>(stored)) << "no partial run";
  http.stop();
}

TEST(HttpHardening, MaxDbMibOnPostgresqlIsRefusedByName) {
  if (!swt::on_postgres()) GTEST_SKIP() << "runs beside a PostgreSQL cluster (server.postgres)";
  swt::TempDir dir;
  shaderwatch::StoreOptions so;
  so.db = dir.db("quota.db");
  so.max_db_mib = 1;
  try {
    shaderwatch::Store store(so);
    ADD_FAILURE() << "a size limit PostgreSQL cannot keep was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--max-db-mib"), std::string::npos) << e.what();
  }
}

}  // namespace
