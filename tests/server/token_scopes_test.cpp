// Token scopes: upload posts runs, triage changes alerts, admin both; any token reads. Tokens made before
// scopes existed (schema version 2) keep working as admin.
#include "raw_connection.h"
#include "test_util.h"
#include "common/sha256.h"

using namespace swt;

namespace {

// Run i of one GPU; a failing run fails one benchmark's check (a correctness regression after a pass).
std::string run_body(int i, bool failing = false) {
  json doc = make_doc({}, {{"lum/seq/1080p/cold", {1000, 1010, 990}}, {"blur/sep/1080p/warm", {2000, 2020, 1980}}});
  if (failing)
    for (auto& row : doc["benchmarks"])
      if (row["name"] == "lum/seq/1080p/cold" && row["run_type"] == "iteration") {
        row["error_occurred"] = true;
        row["error_message"] = "FAIL: sum off by 3 ulp beyond its bound";
      }
  return wrap_doc(doc, cat("run-", std::to_string(i)), cat("c", std::to_string(i)), iso_at(i));
}

// A passing run, then a failing one: the id of the alert the second raises.
std::string raise_alert(const TestServer& s) {
  EXPECT_EQ(s.post(run_body(0))->status, 201);
  auto r = s.post(run_body(1, true));
  EXPECT_EQ(r->status, 201) << r->body;
  const json alerts = json::parse(r->body)["alerts"];
  EXPECT_EQ(alerts.size(), 1u) << alerts.dump(1);
  return alerts.empty() ? "0" : std::to_string(alerts[0]["id"].get<std::int64_t>());
}

httplib::Result patch(const TestServer& s, const std::string& alert, const std::string& token,
                      const std::string& body = R"({"state":"invalid","note":"not ours"})") {
  auto c = s.client();
  c->set_bearer_token_auth(token);
  return c->Patch(cat("/api/v1/alerts/", alert), body, "application/json");
}

json error_message_of(const httplib::Result& r) {
  EXPECT_TRUE(r);
  if (!r) return nullptr;
  const json j = json::parse(r->body, nullptr, false);
  EXPECT_TRUE(j.is_object() && j.contains("error") && j["error"].contains("message")) << r->body;
  return j.is_object() && j.contains("error") ? j["error"]["message"] : json(nullptr);
}

bool has(const json& message, const std::string& what) {
  return message.is_string() && message.get<std::string>().find(what) != std::string::npos;
}

}  // namespace

// A CI runner's token posts runs but cannot silence what they raise.
TEST(TokenScopes, UploadPostsButCannotTriage) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const std::string upload = s.store->tokens().create("ci-runner", shaderwatch::TokenScope::Upload);
  EXPECT_EQ(s.post(run_body(0), upload)->status, 201);
  auto failing = s.post(run_body(1, true), upload);
  ASSERT_EQ(failing->status, 201) << failing->body;
  EXPECT_EQ(json::parse(failing->body)["run"]["posted_by"], "ci-runner");
  const json raised = json::parse(failing->body)["alerts"];
  ASSERT_EQ(raised.size(), 1u) << raised.dump(1);
  const std::string id = std::to_string(raised[0]["id"].get<std::int64_t>());
  const json before = s.get(cat("/api/v1/alerts/", id));
  const json verdict_before = s.get("/api/v1/runs/run-1/verdict");
  ASSERT_EQ(verdict_before["verdict"], "fail");

  auto refused = patch(s, id, upload);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403) << refused->body;
  const json message = error_message_of(refused);
  EXPECT_TRUE(has(message, "needs scope triage or admin")) << message;
  EXPECT_TRUE(has(message, "has scope upload")) << message;
  EXPECT_EQ(json::parse(refused->body)["error"]["field"], "Authorization");
  EXPECT_EQ(s.get(cat("/api/v1/alerts/", id)), before) << "the alert is unchanged";
  EXPECT_EQ(before["state"], "new");
  EXPECT_EQ(s.get("/api/v1/runs/run-1/verdict"), verdict_before);

  // Refused before the body is read: an 80 MiB body announced and none of it sent is answered 403.
  RawConnection raw(s.port);
  ASSERT_TRUE(raw.send(cat("PATCH /api/v1/alerts/", id, " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ", upload,
                           "\r\nContent-Type: application/json\r\nContent-Length: 83886080\r\n\r\n")));
  const std::string answer = raw.receive(std::chrono::milliseconds(5000));
  EXPECT_EQ(answer.rfind("HTTP/1.1 403", 0), 0u) << answer;
  EXPECT_EQ(s.get(cat("/api/v1/alerts/", id)), before);
}

// A person's triage token changes alerts' states but posts no runs.
TEST(TokenScopes, TriageChangesAlertsButCannotPost) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const std::string id = raise_alert(s);
  const std::string triage = s.store->tokens().create("alice", shaderwatch::TokenScope::Triage);
  auto ok = patch(s, id, triage);
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(json::parse(ok->body)["state"], "invalid");
  EXPECT_EQ(json::parse(ok->body)["state_by"], "alice");

  auto refused = s.post(run_body(2), triage);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403) << refused->body;
  const json message = error_message_of(refused);
  EXPECT_TRUE(has(message, "needs scope upload or admin")) << message;
  EXPECT_TRUE(has(message, "has scope triage")) << message;
  s.get("/api/v1/runs/run-2", 404);
}

TEST(TokenScopes, AdminPostsAndTriages) {
  TempDir dir;
  TestServer s(dir.db("sw.db"), {}, false);
  s.token = s.store->tokens().create("ops", shaderwatch::TokenScope::Admin);
  const std::string id = raise_alert(s);
  auto ok = patch(s, id, s.token, R"({"state":"acknowledged"})");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(json::parse(ok->body)["state_by"], "ops");
}

// With --read-token-required, every scope reads.
TEST(TokenScopes, AnyScopeReads) {
  TempDir dir;
  shaderwatch::ServerOptions o;
  o.read_token_required = true;
  TestServer s(dir.db("sw.db"), o);
  for (const auto scope : shaderwatch::kTokenScopes) {
    const std::string name = cat("reader-", shaderwatch::to_string(scope));
    auto c = s.client();
    EXPECT_EQ(c->Get("/api/v1/gpus")->status, 401);
    c->set_bearer_token_auth(s.store->tokens().create(name, scope));
    auto r = c->Get("/api/v1/gpus");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << name << ": " << r->body;
  }
}

// A database of schema version 2 (before scopes), its tokens table as migration 1 made it: its tokens,
// revoked ones included, are admin after the migration, and keep posting and triaging.
TEST(TokenScopes, TokensMadeBeforeScopesAreAdmin) {
  TempDir dir;
  const std::string db = dir.db("v2.db");
  const std::string old_token = cat("swt_", std::string(64, 'a'));
  { shaderwatch::Store make({.db = db, .readers = 1}); }
  {
    auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
    c->exec("DROP TABLE tokens");
    c->exec(c->ddl(R"SQL(
CREATE TABLE tokens(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT);)SQL"));
    c->q("INSERT INTO tokens(name, hash, created_at) VALUES(?,?,?)")
        .bind(1, "old-ci").bind(2, shaderwatch::sha256_hex(old_token)).bind(3, "2026-01-01T00:00:00.000Z").run();
    c->q("INSERT INTO tokens(name, hash, created_at, revoked_at) VALUES(?,?,?,?)")
        .bind(1, "old-gone").bind(2, shaderwatch::sha256_hex("swt_gone")).bind(3, "2026-01-01T00:00:00.000Z")
        .bind(4, "2026-01-02T00:00:00.000Z").run();
    swt::set_back_to_schema(*c, 2);
  }
  TestServer s(db, {}, false);
  EXPECT_EQ(s.store->schema_version(), shaderwatch::Store::kSchemaVersion);
  const auto tokens = s.store->tokens().list();
  ASSERT_EQ(tokens.size(), 2u);
  for (const auto& t : tokens) EXPECT_EQ(t.scope, shaderwatch::TokenScope::Admin) << t.name;
  EXPECT_TRUE(tokens[1].revoked_at) << "still revoked";

  s.token = old_token;
  const std::string id = raise_alert(s);
  auto ok = patch(s, id, old_token);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(json::parse(ok->body)["state_by"], "old-ci");
  EXPECT_EQ(s.post(run_body(2), "swt_gone")->status, 401);

  // Tokens made after the migration have the scope they were given.
  const std::string upload = s.store->tokens().create("new-ci", shaderwatch::TokenScope::Upload);
  EXPECT_EQ(s.post(run_body(3), upload)->status, 201);
  EXPECT_EQ(patch(s, id, upload)->status, 403);
  // The schema admits only the three scopes.
  auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
  EXPECT_THROW(c->exec("UPDATE tokens SET scope='root' WHERE name='new-ci'"), shaderwatch::sql::Error);
}
