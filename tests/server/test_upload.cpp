// The upload client's retries, against a real HTTP server on 127.0.0.1 that answers as told.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "shaderwatch/upload.hpp"

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
const sw::upload::RetryPolicy kFast{5, 0.01, 0.05};

}  // namespace

TEST(Upload, RetriesA503TwiceThenStoresTheSameRun) {
  ScriptedServer server({503, 503, 201});
  std::vector<std::string> notes;
  const auto r = sw::upload::post_run_with_retries(server.url(), "t", kDoc, {"run-1", "c1"}, kFast,
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
  const auto r = sw::upload::post_run_with_retries(server.url(), "t", kDoc, {"run-1", "c1"}, kFast);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(server.bodies().size(), 1u);
}

TEST(Upload, GivesUpAfterItsAttempts) {
  ScriptedServer server({503});
  const auto r = sw::upload::post_run_with_retries(server.url(), "t", kDoc, {"run-1", "c1"}, {3, 0.01, 0.02});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(server.bodies().size(), 3u);
  // Nobody listening: no answer, retried, then the error names the address.
  const auto gone = sw::upload::post_run_with_retries("http://127.0.0.1:1", "t", kDoc, {"run-1", "c1"}, {2, 0.01, 0.02});
  EXPECT_FALSE(gone.ok);
  EXPECT_EQ(gone.status, 0);
  EXPECT_NE(gone.error.find("no answer from http://127.0.0.1:1"), std::string::npos) << gone.error;
}
