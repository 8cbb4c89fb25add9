// Reliability II, finding 3: PostgreSQL down answered every request 500 with "reconnected for the next request",
// health stayed 200, and 9 more requests failed after it came back. Runs beside its own throwaway cluster
// (ctest's server.postgres.outage: with_postgres.sh), which it stops and starts again.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "test_util.h"

using namespace swt;

namespace {

void cluster(const std::string& action) {
  const std::string cmd = cat("bash ", postgres_socket_dir(), "/ctl.sh ", action);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

std::string run_doc(int i) {
  return wrap_doc(make_doc({}, {{"lum/a/1920x1080/hot", {1000.0, 1001.0, 999.0}}}), cat("run-", std::to_string(i)),
                  "c" + std::to_string(i), iso_at(i));
}

}  // namespace

TEST(DatabaseOutage, IsA503WithRetryAfterAndHealthSaysSoAndNothingFailsOnceItIsBack) {
  if (!on_postgres()) GTEST_SKIP() << "an outage of a database server: run by ctest's server.postgres.outage";
  TempDir dir;
  TestServer s(dir.db("outage"));
  auto c = s.client();
  ASSERT_EQ(s.post(run_doc(1))->status, 201);
  EXPECT_EQ(c->Get("/api/v1/health")->status, 200);

  cluster("stop");
  for (int i = 0; i < 4; ++i) {
    for (const char* path : {"/api/v1/runs", "/api/v1/health", "/api/v1/runs/run-1/verdict"}) {
      auto r = c->Get(path);
      ASSERT_TRUE(r) << path;
      EXPECT_EQ(r->status, 503) << path << ": " << r->body;
      EXPECT_EQ(r->get_header_value("Retry-After"), "5") << path;
      EXPECT_NE(r->body.find("the database is unavailable"), std::string::npos) << path << ": " << r->body;
    }
    auto p = s.post(run_doc(2));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->status, 503) << p->body;
  }

  cluster("start");
  // Every pooled connection broke; each request after the restart still succeeds, the first on each
  // connection too.
  for (int i = 0; i < 24; ++i) {
    auto r = c->Get(i % 2 ? "/api/v1/runs" : "/api/v1/health");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << i << ": " << r->body;
  }
  auto p = s.post(run_doc(2));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 201) << p->body;
  EXPECT_EQ(s.get("/api/v1/runs")["runs"].size(), 2u);
}
