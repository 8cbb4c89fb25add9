// Retention (storage/prune.h): a database pruned midway through a history answers every verdict, alert, change
// point, series, run page and overview exactly as one never pruned does, before and after more runs are posted;
// the pruned runs' raw rows are gone (said in their answer) except the rows that are not passes.
#include "test_util.h"

namespace {

using nlohmann::json;
using swt::cat;

const std::vector<std::string> kBenches = {"lum/seq/1080p/cold", "lum/tiled/1080p/cold", "blur/sep/1080p/warm",
                                           "scan/dec/1m/cold", "lum/seq/8k/cold"};

// Run i: ten repetitions per benchmark, labelled; benchmark 0 steps up 20% at run 18 and back at run 34; benchmark 4 fails
// its check in runs 10 and 11 (an error row among its repetitions).
std::string run_body(int i) {
  std::vector<std::pair<std::string, std::vector<double>>> benches;
  for (std::size_t b = 0; b < kBenches.size(); ++b) {
    const double level = 1e5 * static_cast<double>(b + 1) * (b == 0 && i >= 18 && i < 34 ? 1.2 : 1.0);
    std::vector<double> reps;
    for (int r = 0; r < 10; ++r)
      reps.push_back(level * (1 + 0.003 * ((i * 7 + static_cast<int>(b) * 3 + r * 5) % 11 - 5) / 5.0));
    benches.push_back({kBenches[b], reps});
  }
  json doc = swt::make_doc({}, benches);
  // Labels as the bench writes them, which runs differ in: a point's is kept in its pack's shape, pruned or not.
  for (auto& row : doc["benchmarks"]) row["label"] = i % 3 ? "stop:stable-median" : "stop:noise-converged";
  if (i == 10 || i == 11) {
    json err = {{"name", kBenches[4]}, {"family_index", 4}, {"per_family_instance_index", 0}, {"run_name", kBenches[4]},
                {"run_type", "iteration"}, {"repetitions", 10}, {"repetition_index", 3}, {"threads", 1},
                {"iterations", 0}, {"real_time", 0}, {"cpu_time", 0}, {"time_unit", "ns"}, {"error_occurred", true},
                {"error_message", "check failed: element 7 is 2.5, expected 1.5"}};
    doc["benchmarks"].push_back(err);
  }
  return swt::wrap(doc.dump(), cat("run-", std::to_string(i)), cat("c", std::to_string(i)),
                   cat("2026-03-01T", i / 2 < 10 ? "0" : "", std::to_string(i / 2), i % 2 ? ":30:00Z" : ":00:00Z"));
}

// What differs between two servers given the same runs: who posted and triaged, and when runs arrived and alerts rose.
void drop_arrival(json& j) {
  if (j.is_object())
    for (const char* k : {"posted_by", "received_at", "created_at", "updated_at", "state_by"}) j.erase(k);
  if (j.is_structured())
    for (auto& v : j) drop_arrival(v);
}

std::map<std::string, json> answers(const swt::TestServer& s, int runs) {
  std::map<std::string, json> out;
  std::vector<std::string> paths = {"/api/v1/alerts?limit=500",
                                    "/api/v1/summary", "/api/v1/correctness", "/api/v1/rankings?commit=c29"};
  for (int i = 0; i < runs; ++i) {
    paths.push_back(cat("/api/v1/runs/run-", std::to_string(i), "/verdict?dashboard=http%3A%2F%2Fdash.example"));
    paths.push_back(cat("/api/v1/runs/run-", std::to_string(i)));
  }
  const json series_list = s.get("/api/v1/series?limit=1000")["series"];
  for (const auto& series : series_list)
    paths.push_back(cat("/api/v1/series/", std::to_string(series["id"].get<std::int64_t>())));
  for (const auto& p : paths) drop_arrival(out[p] = s.get(p));
  return out;
}

TEST(Prune, APrunedDatabaseJudgesAndShowsEverythingAsAnUnprunedOne) {
  swt::TempDir dir;
  swt::TestServer pruned(dir.db("pruned.db")), whole(dir.db("whole.db"));
  for (int i = 0; i < 30; ++i)
    for (const auto* s : {&pruned, &whole}) {
      const auto r = s->post(run_body(i));
      ASSERT_EQ(r->status, 201) << i << r->body;
    }
  // The failed check's alert closed (on both), so that nothing protects its run from pruning but its failed rows.
  for (const auto* t : {&pruned, &whole}) {
    const json alerts = t->get("/api/v1/alerts?limit=500")["alerts"];
    for (const auto& a : alerts) {
      if (!a["kind"].get<std::string>().starts_with("correctness")) continue;
      auto c = t->client();
      c->set_bearer_token_auth(t->token);
      const auto r = c->Patch(cat("/api/v1/alerts/", std::to_string(a["id"].get<std::int64_t>())),
                              R"({"state":"fixed","note":"fixed in c12"})", "application/json");
      ASSERT_TRUE(r);
      ASSERT_EQ(r->status, 200) << r->body;
    }
  }
  const auto before = answers(whole, 30);
  ASSERT_FALSE(before.at("/api/v1/alerts?limit=500")["alerts"].empty())
      << "the step raised an alert";

  const auto s = pruned.store->prune({INT64_MAX, 5}, [](const std::string&) {});
  EXPECT_GT(s.runs, 10u);
  EXPECT_GT(s.packs, 50u);
  EXPECT_EQ(pruned.store->prune({INT64_MAX, 5}, [](const std::string&) {}).packs, 0u) << "nothing left to prune";
  const auto after = answers(pruned, 30);
  for (const auto& [path, answer] : before)
    if (after.at(path) != answer) ADD_FAILURE() << path << " after pruning:\n" << json::diff(answer, after.at(path)).dump().substr(0, 1500);

  // A pruned run: its passing rows gone, said in the answer; its failed check's rows kept.
  const json rows = pruned.get("/api/v1/runs/run-10/results?limit=10000");
  EXPECT_GT(rows.value("pruned_benchmarks", 0), 0) << rows.dump();
  EXPECT_LT(rows["results"].size(), whole.get("/api/v1/runs/run-10/results?limit=10000")["results"].size());
  bool error_kept = false;
  for (const auto& r : rows["results"]) error_kept = error_kept || r["error_occurred"].get<bool>();
  EXPECT_TRUE(error_kept);
  EXPECT_FALSE(whole.get("/api/v1/runs/run-29/results").contains("pruned_benchmarks")) << "an unpruned run says nothing";
  EXPECT_EQ(pruned.get("/api/v1/runs/run-29/results"), whole.get("/api/v1/runs/run-29/results")) << "the newest kept";

  // More runs on both (the step goes back at run 34): detection on the pruned history finds what the whole one does.
  for (int i = 30; i < 42; ++i)
    for (const auto* t : {&pruned, &whole}) ASSERT_EQ(t->post(run_body(i))->status, 201) << i;
  const auto later = answers(whole, 42), later_pruned = answers(pruned, 42);
  for (const auto& [path, answer] : later)
    if (later_pruned.at(path) != answer)
      ADD_FAILURE() << path << " after more runs:\n" << json::diff(answer, later_pruned.at(path)).dump().substr(0, 1500);
}

}  // namespace
