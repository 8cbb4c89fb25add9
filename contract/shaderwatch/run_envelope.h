#pragma once
// The body of POST /api/v1/runs, {"run": {...}, "benchmark": <one device's Google Benchmark document>}: its keys,
// spelled once for the upload client (upload/upload.cpp) and the server's parser (server/src/ingest/ingest_parse.cpp).
#include <array>

namespace shaderwatch::contract {

inline constexpr const char* kEnvelopeRun = "run";
inline constexpr const char* kEnvelopeBenchmark = "benchmark";

// The run's fields: who measured what, where. id and commit are required; started_at falls back on the
// document's context.date.
inline constexpr const char* kRunId = "id";
inline constexpr const char* kRunCommit = "commit";
inline constexpr const char* kRunBranch = "branch";          // none: the server's main branch
inline constexpr const char* kRunMergeBase = "merge_base";   // a branch run: the main commit it forked from
inline constexpr const char* kRunRunner = "runner";
inline constexpr const char* kRunJobUrl = "job_url";
inline constexpr const char* kRunStartedAt = "started_at";   // ISO 8601 with a zone
inline constexpr std::array kRunFields = {kRunId, kRunCommit, kRunBranch, kRunMergeBase, kRunRunner, kRunJobUrl,
                                          kRunStartedAt};

}  // namespace shaderwatch::contract
