// A driver is its build: its version in the vendor's spelling, its driver_info and its UUID
// (contract/shaderwatch/driver_version.h, server/src/driver_identity.*), on ingest, on a database written
// before, and on the series' markers.
#include <gtest/gtest.h>

#include "common/driver_identity.h"
#include "fixture_file.h"
#include "ingest/ingest_parse.h"
#include "shaderwatch/driver_version.h"
#include "service/store.h"
#include "storage/sql.h"
#include "test_util.h"

using nlohmann::json;
using swt::cat;
using swt::TempDir;
using swt::TestServer;

namespace {

std::string wrapped(const json& doc, const std::string& id, const std::string& started_at) {
  return json{{"run", {{"id", id}, {"commit", "c-" + id}, {"runner", "runner-1"}, {"started_at", started_at}}},
              {"benchmark", doc}}
      .dump();
}

void post_all(TestServer& s, const std::vector<json>& docs) {
  for (std::size_t i = 0; i < docs.size(); ++i) {
    auto r = s.post(wrapped(docs[i], cat("lvp-", std::to_string(i)), swt::iso_at(static_cast<int>(i))));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 201) << r->body;
  }
}

// The quick lavapipe run's series of its one measured benchmark, after posting `docs` in order.
json lavapipe_series(TestServer& s, const std::vector<json>& docs) {
  post_all(s, docs);
  const auto list = s.get("/api/v1/series?benchmark=lum/sequential_256/320x180/hot");
  EXPECT_EQ(list["series"].size(), 1u) << "a driver build is a marker on its series, not a new series";
  return s.get(cat("/api/v1/series/", std::to_string(list["series"][0]["id"].get<int>())));
}

}  // namespace

TEST(DriverIdentity, TheVendorsSpellingOfTheRawVersion) {
  using shaderwatch::contract::driver_version_text;
  EXPECT_EQ(driver_version_text(0x10DE, 4, 0x9127c100), "580.159.04");  // the H200's driver, as nvidia-smi writes it
  EXPECT_EQ(driver_version_text(0x10DE, 4, (535u << 22) | (104u << 14) | (12u << 6)), "535.104.12");
  EXPECT_EQ(driver_version_text(0x10DE, 4, (535u << 22) | (104u << 14) | (5u << 6) | 3u), "535.104.05.3");
  EXPECT_EQ(driver_version_text(0x10005, 13, 1), "0.0.1");  // lavapipe, every release
  EXPECT_EQ(driver_version_text(0x1002, 3, (2u << 22) | (0u << 12) | 301u), "2.0.301");
  EXPECT_EQ(driver_version_text(0x8086, 5, (101u << 14) | 5074u), "101.5074");  // Intel on Windows: 18.14 bits
}

TEST(DriverIdentity, ALabelSaysDriverInfoWhereItSaysMoreThanTheVersion) {
  EXPECT_EQ((shaderwatch::DriverIdentity{"NVIDIA", "580.159.04", "580.159.04", "u1"}.label()), "NVIDIA 580.159.04");
  EXPECT_EQ((shaderwatch::DriverIdentity{"llvmpipe", "0.0.1", "Mesa 24.2.8 (LLVM 15.0.6)", ""}.label()),
            "llvmpipe 0.0.1 (Mesa 24.2.8 (LLVM 15.0.6))");
  const shaderwatch::DriverIdentity a{"NVIDIA", "580.159.04", "580.159.04", "aaaa"}, b{"NVIDIA", "580.159.04", "580.159.04", "bbbb"};
  EXPECT_NE(a, b) << "two builds of one version are two drivers";
  const auto t = shaderwatch::driver_change_text(a, b);
  EXPECT_EQ(t.before, "NVIDIA 580.159.04, build aaaa");
  EXPECT_EQ(t.after, "NVIDIA 580.159.04, build bbbb");
  const auto u = shaderwatch::driver_change_text(a, {"NVIDIA", "590.10.01", "590.10.01", "cccc"});
  EXPECT_EQ(u.after, "NVIDIA 590.10.01") << "the UUID only where the labels are the same";
}

TEST(DriverIdentity, IngestSpellsAnOlderHarnesssNvidiaVersionTheVendorsWay) {
  auto doc = swt::read_fixture("real/h200-run1.json");
  ASSERT_EQ(doc["context"]["sw_driver_version"], "580.159.4.0") << "the fixture is an older harness's run";
  EXPECT_EQ(shaderwatch::parse_body(wrapped(doc, "r1", "2026-11-20T00:00:00Z"), 64).driver_version, "580.159.04");

  doc["context"]["sw_driver_version_raw"] = "0x91zz";
  try {
    shaderwatch::parse_body(wrapped(doc, "r1", "2026-11-20T00:00:00Z"), 64);
    FAIL() << "a raw version that is not hex is refused";
  } catch (const shaderwatch::ClientError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_NE(std::string(e.what()).find("driver_version_raw"), std::string::npos) << e.what();
  }
}

TEST(DriverIdentity, MigrationRespellsRunsStoredBeforeIt) {
  TempDir dir;
  const std::string db = dir.db("v3.db");
  {
    TestServer s(db);
    auto r = s.post(wrapped(swt::read_fixture("real/h200-run1.json"), "old", "2026-11-20T00:00:00Z"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201) << r->body;
  }
  {  // As a server before the vendor's spelling stored it.
    auto c = shaderwatch::sql::connect(shaderwatch::sql::Location::parse(db), shaderwatch::sql::Role::Writer);
    c->exec("UPDATE runs SET driver_version='580.159.4.0'");
    swt::set_back_to_schema(*c, 3);
  }
  TestServer s(db);
  EXPECT_EQ(s.store->schema_version(), shaderwatch::Store::kSchemaVersion);
  const auto drivers = s.get("/api/v1/drivers")["drivers"];
  ASSERT_EQ(drivers.size(), 1u);
  EXPECT_EQ(drivers[0]["driver_version"], "580.159.04");

  // The next run of the same driver is the same driver: no marker on its series.
  auto r = s.post(wrapped(swt::read_fixture("real/h200-run2.json"), "new", "2026-11-21T00:00:00Z"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  EXPECT_EQ(s.get("/api/v1/drivers")["drivers"].size(), 1u);
  const auto list = s.get("/api/v1/series?gpu_id=1&limit=1");
  const auto series = s.get(cat("/api/v1/series/", std::to_string(list["series"][0]["id"].get<int>())));
  EXPECT_EQ(series["points"].size(), 2u);
  EXPECT_TRUE(series["covariate_changes"].empty()) << series["covariate_changes"].dump(1);
}

TEST(DriverIdentity, ALavapipeRunThatChangesOnlyDriverInfoIsADriverMarker) {
  TempDir dir;
  TestServer s(dir.db("sw.db"));
  const auto base = swt::read_fixture("shaderwatch_bench_quick.json");
  auto rebuilt = base, other_build = base;
  rebuilt["context"]["sw_driver_info"] = "Mesa 22.3.7 (LLVM 15.0.6)";  // lavapipe still says 0.0.1
  other_build["context"]["sw_driver_info"] = "Mesa 22.3.7 (LLVM 15.0.6)";
  other_build["context"]["sw_driver_uuid"] = "6c6c766d-7069-7065-5555-494400000001";
  const auto series = lavapipe_series(s, {base, base, rebuilt, other_build});
  ASSERT_EQ(series["points"].size(), 4u);
  EXPECT_EQ(series["points"][2]["driver"], "llvmpipe 0.0.1 (Mesa 22.3.7 (LLVM 15.0.6))");
  const auto& changes = series["covariate_changes"];
  ASSERT_EQ(changes.size(), 2u) << changes.dump(1);
  EXPECT_EQ(changes[0]["index"], 2);
  EXPECT_EQ(changes[0]["field"], "driver");
  EXPECT_EQ(changes[0]["before"], "llvmpipe 0.0.1 (Mesa 22.3.6 (LLVM 15.0.6))");
  EXPECT_EQ(changes[0]["after"], "llvmpipe 0.0.1 (Mesa 22.3.7 (LLVM 15.0.6))");
  EXPECT_EQ(changes[1]["index"], 3);
  EXPECT_EQ(changes[1]["field"], "driver_uuid") << "a new build of the same driver_info";

  // The overview lists the three builds as the GPU's drivers.
  const auto summary = s.get("/api/v1/summary");
  ASSERT_EQ(summary["gpus"].size(), 1u);
  EXPECT_EQ(summary["gpus"][0]["drivers"].size(), 3u) << summary["gpus"][0]["drivers"].dump(1);
}
