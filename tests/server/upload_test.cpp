// The upload client's retries, against a real HTTP server on 127.0.0.1 that answers as told.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "shaderwatch/upload.h"
#include "test_util.h"

#include <set>

namespace {

// Answers POST /api/v1/runs with each status of `script` in turn, then with the last one.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<int> script) : script_(std::move(script)) {
    server_.Post("/api/v1/runs", [this](const httplib::Request& req, httplib::Response& res) {
      const std::lock_guard lock(mutex_);
      bodies_.push_back(req.body);
      res.status = script_[std::min(bodies_.size(), script_.size()) - 1];
      res.set_content(res.status < 300 ? R"({"run":{}})" : R"({"error":{"message":"busy"}})", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });  // bound and listening: clients queue until it accepts
  }
  ~ScriptedServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> bodies() {
    const std::lock_guard lock(mutex_);
    return bodies_;
  }

 private:
  httplib::Server server_;
  std::vector<int> script_;
  std::mutex mutex_;
  std::vector<std::string> bodies_;
  int port_ = 0;
  std::thread thread_;
};

const std::string kDoc = R"({"context":{"date":"2026-11-21T10:00:00+00:00"},"benchmarks":[]})";
const shaderwatch::upload::RetryPolicy kFast{5, 0.01, 0.05};

}  // namespace

TEST(Upload, RetriesA503TwiceThenStoresTheSameRun) {
  ScriptedServer server({503, 503, 201});
  std::vector<std::string> notes;
  const auto r = shaderwatch::upload::post_run_with_retries(server.url(), "t", kDoc, {"run-1", "c1"}, kFast,
                                                   [&](const std::string& why) { notes.push_back(why); });
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.status, 201);
  const auto bodies = server.bodies();
  ASSERT_EQ(bodies.size(), 3u);
  EXPECT_EQ(bodies[0], bodies[2]) << "every try sends the same run";
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("HTTP 503: busy"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("try 2 of 5"), std::string::npos) << notes[0];
}

TEST(Upload, ABadRequestIsNotRetried) {
  ScriptedServer server({400});
  const auto r = shaderwatch::upload::post_run_with_retries(server.url(), "t", kDoc, {"run-1", "c1"}, kFast);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(server.bodies().size(), 1u);
}

TEST(Upload, GivesUpAfterItsAttempts) {
  ScriptedServer server({503});
  const auto r = shaderwatch::upload::post_run_with_retries(server.url(), "t", kDoc, {"run-1", "c1"}, {3, 0.01, 0.02});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(server.bodies().size(), 3u);
  // Nobody listening: no answer, retried, then the error names the address.
  const auto gone = shaderwatch::upload::post_run_with_retries("http://127.0.0.1:1", "t", kDoc, {"run-1", "c1"}, {2, 0.01, 0.02});
  EXPECT_FALSE(gone.ok);
  EXPECT_EQ(gone.status, 0);
  EXPECT_NE(gone.error.find("no answer from http://127.0.0.1:1"), std::string::npos) << gone.error;
}

// --device all on a 2-GPU runner: one document, two devices (contract: swdev<N>_ keys, names ending
// /dev<N>). The client posts one run per device; the server refuses the document whole.
namespace {

nlohmann::json two_device_doc() {
  using nlohmann::json;
  json out = swt::make_doc({}, {}, true);
  out["context"] = {{"date", "2026-11-21T10:00:00+00:00"}, {"host_name", "gpu-host"}, {"sw_seed", "7"}};
  out["benchmarks"] = json::array();
  const std::pair<std::string, swt::Gpu> devices[] = {{"0", {"NVIDIA H200", "0x10de", "0x2335", "580.159.4.0"}},
                                                      {"10", {"NVIDIA H100", "0x10de", "0x2330", "580.159.4.0"}}};
  for (const auto& [index, gpu] : devices) {
    const json one = swt::make_doc(gpu, {{"lum/a_256/64x32/hot", {1000, 1010, 990}}, {"lum/a_256/64x32/cold", {2000, 2010, 1990}}});
    for (const auto& [key, value] : one["context"].items())
      if (key.starts_with("sw_")) out["context"]["swdev" + index + "_" + key.substr(3)] = value;
    for (json row : one["benchmarks"]) {
      const std::string run_name = row["run_name"];
      row["name"] = run_name + "/dev" + index + row["name"].get<std::string>().substr(run_name.size());
      row["run_name"] = run_name + "/dev" + index;
      out["benchmarks"].push_back(row);
    }
  }
  return out;
}

}  // namespace

TEST(Upload, ADocumentOfSeveralDevicesIsSplitIntoOneRunPerDevice) {
  const auto parts = shaderwatch::upload::split_by_device(two_device_doc().dump());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].run_id_suffix, "-dev0");
  EXPECT_EQ(parts[1].run_id_suffix, "-dev10") << "numeric order";
  const auto h200 = nlohmann::json::parse(parts[0].benchmark_json);
  EXPECT_EQ(h200["context"]["sw_device_name"], "NVIDIA H200");
  EXPECT_EQ(h200["context"]["sw_seed"], "7") << "shared keys are kept";
  EXPECT_EQ(h200["context"]["host_name"], "gpu-host");
  for (const auto& [key, value] : h200["context"].items()) EXPECT_FALSE(key.starts_with("swdev")) << key;
  ASSERT_EQ(h200["benchmarks"].size(), 12u);  // 2 benchmarks x (3 repetitions + mean, median, stddev)
  std::set<std::string> names;
  for (const auto& row : h200["benchmarks"]) names.insert(row["name"].get<std::string>());
  EXPECT_TRUE(names.count("lum/a_256/64x32/hot") && names.count("lum/a_256/64x32/cold_mean")) << h200.dump();
  EXPECT_EQ(nlohmann::json::parse(parts[1].benchmark_json)["context"]["sw_device_name"], "NVIDIA H100");
  // One device: the document as it is.
  const std::string one = swt::make_doc({}, {{"x/y/1/hot", {1, 2}}}).dump();
  const auto single = shaderwatch::upload::split_by_device(one);
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0].run_id_suffix, "");
  EXPECT_EQ(single[0].benchmark_json, one);
  // A benchmark of no device is refused, naming it.
  auto stray = two_device_doc();
  stray["benchmarks"][0]["run_name"] = stray["benchmarks"][0]["name"] = "lum/a_256/64x32/hot";
  try {
    shaderwatch::upload::split_by_device(stray.dump());
    ADD_FAILURE() << "a benchmark of no device was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'lum/a_256/64x32/hot' names none of the document's devices"), std::string::npos) << e.what();
  }
}

TEST(Upload, EachDeviceBecomesItsOwnRunOnARealServer) {
  swt::TempDir dir;
  swt::TestServer srv(dir.db("devices.db"));
  const std::string url = "http://127.0.0.1:" + std::to_string(srv.port);
  auto c = srv.client();
  // Posted whole, bypassing the client: refused, naming the key.
  const auto whole = srv.post(swt::wrap(two_device_doc().dump(), "job-1", "c1"));
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->status, 400);
  EXPECT_NE(whole->body.find("a document of several devices"), std::string::npos) << whole->body;

  const auto posted = shaderwatch::upload::post_runs_per_device(url, srv.token, two_device_doc().dump(), {"job-1", "c1"}, kFast);
  ASSERT_EQ(posted.size(), 2u);
  for (const auto& p : posted) EXPECT_TRUE(p.result.ok) << p.run_id << ": " << p.result.error;
  EXPECT_EQ(posted[0].run_id, "job-1-dev0");
  EXPECT_EQ(posted[1].run_id, "job-1-dev10");
  for (const auto& [run, gpu] : {std::pair{"job-1-dev0", "NVIDIA H200"}, std::pair{"job-1-dev10", "NVIDIA H100"}}) {
    const auto r = c->Get(std::string("/api/v1/runs/") + run);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    const auto doc = nlohmann::json::parse(r->body);
    EXPECT_EQ(doc["run"]["gpu"]["name"], gpu) << r->body;
    ASSERT_EQ(doc["points"].size(), 2u);
    for (const auto& p : doc["points"]) EXPECT_EQ(p["benchmark"].get<std::string>().find("/dev"), std::string::npos);
  }
  // Posting the same job again stores nothing twice.
  const auto again = shaderwatch::upload::post_runs_per_device(url, srv.token, two_device_doc().dump(), {"job-1", "c1"}, kFast);
  ASSERT_EQ(again.size(), 2u);
  for (const auto& p : again) EXPECT_EQ(p.result.status, 200) << p.run_id;
}
