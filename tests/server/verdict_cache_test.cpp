// Verdicts kept between asks (queries/verdict_cache.h) are never stale: after every kind of change a verdict may
// depend on (a later run, a run placed before it, triage of an alert, a note, a branch run's newer main baseline),
// each run's verdict from the server that kept it equals the one a fresh server judges from the database.
#include "test_util.h"

namespace {

using nlohmann::json;
using swt::cat;

std::string syn_run(const std::string& id, int i, double level, const std::string& branch = "main") {
  json body = json::parse(swt::wrap(swt::make_doc({}, {{"a/b/1/cold", {level, level * 1.001, level * 0.999}},
                                                      {"a/c/1/cold", {2e5, 2.001e5, 1.999e5}}}).dump(),
                                    id, cat("s", std::to_string(i)),
                                    cat("2026-02-01T00:", i < 10 ? "0" : "", std::to_string(i), ":00Z")));
  body["run"]["branch"] = branch;
  return body.dump();
}

TEST(VerdictCache, AKeptVerdictIsTheOneAFreshServerJudges) {
  swt::TempDir dir;
  const std::string db = dir.db("v.db");
  swt::TestServer s(db);
  std::vector<std::string> ids;
  const auto post = [&](const std::string& id, int i, double level, const std::string& branch = "main") {
    auto r = s.post(syn_run(id, i, level, branch));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201) << r->body;
    ids.push_back(id);
  };
  for (int i = 0; i < 18; ++i) post(cat("m", std::to_string(i)), i * 2, i < 8 ? 1e5 : 1.4e5);
  post("branch", 35, 1.4e5, "feature");
  const auto verdict = [](const swt::TestServer& on, const std::string& id) {
    return on.get(cat("/api/v1/runs/", id, "/verdict?dashboard=http%3A%2F%2Fdash.example"));
  };
  const auto all_fresh = [&](const char* after) {
    for (const auto& id : ids) verdict(s, id);  // kept (or judged again) by the live server
    swt::TestServer fresh(db, {}, false);
    for (const auto& id : ids) EXPECT_TRUE(verdict(s, id) == verdict(fresh, id)) << id << " after " << after;
  };
  all_fresh("posting");
  const json alerts = s.get("/api/v1/alerts?limit=100")["alerts"];
  ASSERT_FALSE(alerts.empty()) << "the step raised an alert";
  const std::string alert = std::to_string(alerts[0]["id"].get<std::int64_t>());
  const auto patch = [&](const std::string& body) {
    auto c = s.client();
    c->set_bearer_token_auth(s.token);
    auto r = c->Patch(cat("/api/v1/alerts/", alert), body, "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  };
  patch(R"({"state":"acknowledged"})");
  all_fresh("acknowledging an alert");
  patch(R"({"state":"acknowledged","note":"looked at it"})");
  all_fresh("a note");
  post("late", 40, 1.4e5);  // after every run: the branch run's baseline may move, the others' not
  all_fresh("a later main run");
  post("early", 1, 1e5);  // placed between the first two runs: every later run's history changes
  all_fresh("a run placed before others");
}

}  // namespace
