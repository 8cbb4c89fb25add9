// Issue 30, part 2: the server keeps what the driver compiled of each kernel (the document's sw_compiled
// section) per run and shows it: the run answer lists each kernel's statistics, the series answer says which
// compilation each point ran and where the SPIR-V, the input or the compiled statistics changed.
#include <gtest/gtest.h>

#include <shaderwatch/result_contract.h>

#include "common/client_error.h"
#include "fixture_file.h"
#include "quick_bench.h"
#include "ingest/ingest_parse.h"
#include "service/store.h"
#include "storage/sql.h"
#include "test_util.h"

using nlohmann::json;
using swt::cat;
using swt::TempDir;
using swt::TestServer;
namespace contract = shaderwatch::contract;

namespace {

// The real --quick run on an H200, with its compiled section.
json h200_quick() { return swt::read_fixture("real/h200-37f43c1-quick.json.gz"); }

std::string wrapped(const json& doc, const std::string& id, int minute) {
  return json{{"run", {{"id", id}, {"commit", "c-" + id}, {"started_at", swt::iso_at(minute)}}}, {"benchmark", doc}}.dump();
}

json& statistic(json& doc, const std::string& kernel, const std::string& name) {
  for (auto& s : doc[contract::kCompiledSection][kernel]["pipelines"][0][0]["statistics"])
    if (s["name"] == name) return s["value"];
  throw std::runtime_error("no statistic " + name + " for " + kernel);
}

std::int64_t series_id_of(const TestServer& s, const std::string& benchmark) {
  const json page = s.get(cat("/api/v1/series?benchmark=", benchmark));
  EXPECT_EQ(page["series"].size(), 1u) << benchmark;
  return page["series"].at(0)["id"].get<std::int64_t>();
}

// The covariate changes of one field, as "index: before -> after".
std::vector<std::string> changes_of(const json& series, const std::string& field) {
  std::vector<std::string> out;
  for (const auto& c : series["covariate_changes"])
    if (c["field"] == field)
      out.push_back(cat(std::to_string(c["index"].get<int>()), ": ", c["before"].get<std::string>(), " -> ",
                        c["after"].get<std::string>()));
  return out;
}

std::string parse_error(const json& doc) {
  try {
    shaderwatch::parse_body(wrapped(doc, "bad", 0), 64);
  } catch (const shaderwatch::ClientError& e) {
    return cat(e.field, ": ", e.what());
  }
  return "accepted";
}

}  // namespace

TEST(CompiledEvidence, EveryKernelsCompilationIsParsedAndPartOfTheRunsIdentity) {
  const json doc = h200_quick();
  const auto p = shaderwatch::parse_body(wrapped(doc, "h200", 0), 64);
  ASSERT_EQ(p.compiled.size(), doc[contract::kCompiledSection].size());
  ASSERT_EQ(p.compiled.size(), 48u);
  EXPECT_TRUE(std::is_sorted(p.compiled.begin(), p.compiled.end(),
                             [](const auto& a, const auto& b) { return a.kernel < b.kernel; }));
  const auto& lum = *std::find_if(p.compiled.begin(), p.compiled.end(), [](const auto& k) { return k.kernel == "lum/interleaved_256"; });
  EXPECT_EQ(lum.spirv, "7ee3f9057fc10a53");
  EXPECT_EQ(lum.input, "random@1");
  // Same compilation, same identity; one statistic more or less is another compilation and another body.
  json changed = doc;
  statistic(changed, "lum/interleaved_256", "Register Count") = 20;
  const auto q = shaderwatch::parse_body(wrapped(changed, "h200", 0), 64);
  EXPECT_EQ(shaderwatch::parse_body(wrapped(doc, "h200", 0), 64).sha, p.sha);
  EXPECT_NE(q.sha, p.sha);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < p.compiled.size(); ++i) differing += p.compiled[i].sha != q.compiled[i].sha;
  EXPECT_EQ(differing, 1u);
}

TEST(CompiledEvidence, EveryBadEntryIsRefusedNamingWhatIsWrong) {
  const json good = h200_quick();
  const std::string section = cat("benchmark.", contract::kCompiledSection);
  const auto with = [&](const std::function<void(json&)>& change) {
    json doc = good;
    change(doc[contract::kCompiledSection]);
    return parse_error(doc);
  };
  EXPECT_EQ(with([](json& c) { c = json::array(); }), section + ": must be an object");
  EXPECT_EQ(with([](json& c) { c["lum/interleaved_256"]["pipelines"][0][0]["statistics"][0]["value"] = -3; }),
            section + ".lum/interleaved_256.pipelines[0][0].statistics[0].value: is not a uint64 value");
  EXPECT_EQ(with([](json& c) { c["lum/interleaved_256"]["pipelines"][0][0]["statistics"][0]["format"] = "string"; }),
            section + ".lum/interleaved_256.pipelines[0][0].statistics[0].format: must be one of bool32, int64, uint64, float64");
  EXPECT_EQ(with([](json& c) { c["lum/interleaved_256"]["registers"] = 3; }),
            section + ".lum/interleaved_256.registers: unknown field");
  EXPECT_EQ(with([](json& c) { c["lum/interleaved_256"].erase("spirv"); }),
            section + ".lum/interleaved_256.spirv: missing required field");
  EXPECT_EQ(with([](json& c) { c["lum/interleaved_256"]["pipelines"] = json::array({json::object()}); }),
            section + ".lum/interleaved_256.pipelines[0]: must be an array of executables");
  EXPECT_EQ(with([](json& c) { c["lum/interleaved_256"]["pipelines"][0][0]["subgroup_size"] = 1e6; }),
            section + ".lum/interleaved_256.pipelines[0][0].subgroup_size: must be an integer in [0, 4096]");
  EXPECT_EQ(with([](json& c) { c["lum/interleaved_256/dev1"] = c["lum/interleaved_256"]; }).substr(0, section.size() + 50),
            (section + ".lum/interleaved_256/dev1: a kernel of one of several devices").substr(0, section.size() + 50));
  EXPECT_EQ(with([](json& c) { c[std::string(300, 'k')] = c["lum/interleaved_256"]; }),
            section + "." + std::string(256, 'k') + ": kernel name must be 1-256 characters");
}

TEST(CompiledEvidence, TheRunSaysWhatWasCompiledAndTheSeriesWhereItChanged) {
  TempDir dir;
  TestServer s(dir.db("compiled.db"));
  const json base = h200_quick();
  // Four runs of one GPU: the same; the same again; the interleaved kernel's SPIR-V changed; then, same
  // SPIR-V, the driver's compilation of it uses more registers (a compiler change) and the blend's fragment
  // shader a larger binary.
  json spirv_changed = base;
  spirv_changed[contract::kCompiledSection]["lum/interleaved_256"]["spirv"] = "00000000feedface";
  json compiler_changed = spirv_changed;
  statistic(compiler_changed, "lum/interleaved_256", "Register Count") = 24;
  for (auto& s : compiler_changed[contract::kCompiledSection]["boids/blend_1x1"]["pipelines"][0][1]["statistics"])
    if (s["name"] == "Binary Size") s["value"] = 640;
  const json runs[] = {base, base, spirv_changed, compiler_changed};
  for (int i = 0; i < 4; ++i) {
    const auto r = s.post(wrapped(runs[i], cat("run", std::to_string(i)), i * 60));
    ASSERT_TRUE(r && r->status == 201) << (r ? r->body : "no answer");
  }
  // The run answer: each kernel's compilation, statistics by name.
  const json run = s.get("/api/v1/runs/run3");
  ASSERT_EQ(run["compiled"].size(), 48u);
  std::map<std::string, json> by_kernel;
  for (const auto& k : run["compiled"]) by_kernel[k["kernel"]] = k;
  const json& lum = by_kernel.at("lum/interleaved_256");
  EXPECT_EQ(lum["spirv"], "00000000feedface");
  EXPECT_EQ(lum["input"], "random@1");
  ASSERT_GE(lum["statistics"].size(), 5u);
  EXPECT_EQ(lum["statistics"][0],
            (json{{"name", "CS Register Count"}, {"executable", "CS"}, {"statistic", "Register Count"}, {"value", 24}}));
  // A graphics pipeline's stages are named apart.
  std::set<std::string> blend;
  for (const auto& st : by_kernel.at("boids/blend_1x1")["statistics"]) blend.insert(st["name"]);
  EXPECT_TRUE(blend.count("VS Register Count") && blend.count("FS Register Count") && blend.count("FS Output Colors"));

  // The series: which compilation each point ran, and where what ran changed.
  const json series = s.get(cat("/api/v1/series/", std::to_string(series_id_of(s, "lum/interleaved_256/320x180/hot"))));
  ASSERT_EQ(series["points"].size(), 4u);
  EXPECT_EQ(series["points"][0]["spirv"], "7ee3f9057fc10a53");
  EXPECT_EQ(series["points"][0]["compiled_id"], series["points"][1]["compiled_id"]) << "one row for the same compilation";
  EXPECT_EQ(series["compiled"].size(), 3u);
  EXPECT_EQ(changes_of(series, "spirv"), std::vector<std::string>{"2: 7ee3f9057fc10a53 -> 00000000feedface"});
  EXPECT_EQ(changes_of(series, "statistics"), std::vector<std::string>{"3: CS Register Count 16 -> CS Register Count 24"});
  EXPECT_TRUE(changes_of(series, "input").empty());
  const json blend_series = s.get(cat("/api/v1/series/", std::to_string(series_id_of(s, "boids/blend_1x1/4096/hot"))));
  EXPECT_EQ(changes_of(blend_series, "statistics"), std::vector<std::string>{"3: FS Binary Size 512 -> FS Binary Size 640"});
  EXPECT_TRUE(changes_of(blend_series, "spirv").empty());
}

TEST(CompiledEvidence, ARunWithoutTheSectionShowsTheSpirvItsLabelsName) {
  TempDir dir;
  TestServer s(dir.db("labels.db"));
  json doc = h200_quick();
  doc.erase(contract::kCompiledSection);
  ASSERT_TRUE(s.post(wrapped(doc, "old", 0))->status == 201);
  const json series = s.get(cat("/api/v1/series/", std::to_string(series_id_of(s, "lum/interleaved_256/320x180/hot"))));
  EXPECT_EQ(series["points"][0]["spirv"], "7ee3f9057fc10a53");
  EXPECT_TRUE(series["points"][0]["compiled_id"].is_null());
  EXPECT_TRUE(s.get("/api/v1/runs/old")["compiled"].empty());
}

// A point's label is its rows' (the first a row of its point has), kept once in its pack's shape, which every run of
// the suite shares: the point's own column stays empty, and the run page shows the shape's.
TEST(CompiledEvidence, APointsLabelIsKeptInItsPacksShapeAlone) {
  TempDir dir;
  const std::string db = dir.db("shape-labels.db");
  TestServer s(db);
  const json doc = h200_quick();
  ASSERT_EQ(s.post(wrapped(doc, "r1", 0))->status, 201);
  std::map<std::string, std::string> posted;  // by benchmark, the first measured row's label
  for (const auto& row : doc["benchmarks"])
    if (row.value("run_type", "") == "iteration" && !row.value("error_occurred", false))
      posted.emplace(row["run_name"].get<std::string>(), row.value("label", ""));
  {
    auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Reader);
    auto& st = c->q("SELECT COUNT(*), SUM(CASE WHEN label = '' THEN 1 ELSE 0 END) FROM points");
    ASSERT_TRUE(st.step());
    EXPECT_GT(st.i64(0), 100);
    EXPECT_EQ(st.i64(1), st.i64(0)) << "no point keeps a label of its own";
    st.reset();
  }
  std::size_t shown = 0;
  const json run = s.get("/api/v1/runs/r1");
  for (const auto& p : run["points"]) {
    const auto it = posted.find(p["benchmark"].get<std::string>());
    if (it == posted.end()) continue;
    EXPECT_EQ(p["label"], it->second) << p["benchmark"];
    shown += it->second.starts_with("spirv:");
  }
  EXPECT_GT(shown, 100u);
}

// Schema 8 keeps each point's SPIR-V hash in a column that every reader reads (the label is no longer parsed there).
// A database stored before it gets the hash from each point's label, on SQLite and PostgreSQL alike.
TEST(CompiledEvidence, PointsStoredBeforeTheSpirvColumnGetItFromTheirLabels) {
  TempDir dir;
  const std::string db = dir.db("v7.db");
  json doc = h200_quick();
  doc.erase(contract::kCompiledSection);
  std::vector<std::pair<std::int64_t, std::string>> labels;  // by series: what a server of schema 7 kept in points
  {
    TestServer s(db);
    ASSERT_TRUE(s.post(wrapped(doc, "old", 0))->status == 201);
    const json run = s.get("/api/v1/runs/old");
    for (const auto& p : run["points"]) labels.emplace_back(p["series_id"], p["label"]);
  }
  std::size_t labelled = 0;
  {
    auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
    auto& put = c->q("UPDATE points SET label=? WHERE series_id=?");
    for (const auto& [series, label] : labels) {
      put.reset();
      put.bind(1, label).bind(2, series).run();
    }
    auto& st = c->q("SELECT COUNT(*) FROM points WHERE label LIKE 'spirv:%'");
    ASSERT_TRUE(st.step());
    labelled = static_cast<std::size_t>(st.i64(0));
    st.reset();
    swt::set_back_to_schema(*c, 7);
  }
  ASSERT_GT(labelled, 100u);
  TestServer s(db);
  EXPECT_EQ(s.store->schema_version(), shaderwatch::Store::kSchemaVersion);
  auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
  auto& st = c->q("SELECT label, spirv FROM points");
  std::size_t filled = 0;
  while (st.step()) {
    EXPECT_EQ(st.text(1), contract::spirv_of_label(st.text(0))) << st.text(0);
    filled += !st.text(1).empty();
  }
  st.reset();
  EXPECT_EQ(filled, labelled);
  const json series = s.get(cat("/api/v1/series/", std::to_string(series_id_of(s, "lum/interleaved_256/320x180/hot"))));
  EXPECT_EQ(series["points"][0]["spirv"], "7ee3f9057fc10a53");
}

TEST(CompiledEvidence, OnADeviceWithoutStatisticsTheBenchsHashesAreKept) {
  // Lavapipe has no VK_KHR_pipeline_executable_properties: the section has each kernel's hash and input only.
  TempDir dir;
  const json doc = swt::quick_bench_document(dir, "^lum/sequential_256$");
  ASSERT_FALSE(doc.is_null());
  TestServer s(dir.db("lavapipe.db"));
  const auto posted = s.post(wrapped(doc, "lavapipe", 0));
  ASSERT_TRUE(posted && posted->status == 201) << (posted ? posted->body : "no answer");
  const json run = s.get("/api/v1/runs/lavapipe");
  ASSERT_EQ(run["compiled"].size(), 1u);
  EXPECT_EQ(run["compiled"][0]["kernel"], "lum/sequential_256");
  EXPECT_EQ(run["compiled"][0]["spirv"], doc[contract::kCompiledSection]["lum/sequential_256"]["spirv"]);
  EXPECT_FALSE(run["compiled"][0]["spirv"].get<std::string>().empty());
  EXPECT_TRUE(run["compiled"][0]["statistics"].empty());
}
