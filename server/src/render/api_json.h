// The JSON API's answers, rendered from the read side's values (queries/*_answer.h): the one place their
// JSON is spelled, one renderer per struct (nlohmann's to_json, so lists of them render as arrays).
#pragma once

#include <nlohmann/json.hpp>

#include "queries/alert_answer.h"
#include "queries/answer_common.h"
#include "queries/browse_answer.h"
#include "queries/compare_answer.h"
#include "queries/dashboard_answer.h"
#include "queries/rankings_answer.h"
#include "queries/run_answer.h"
#include "queries/series_answer.h"
#include "queries/verdict_answer.h"
#include "queries/vocabulary_answer.h"

namespace shaderwatch {

void to_json(nlohmann::json& j, const GpuRef& g);
void to_json(nlohmann::json& j, const Alert& a);
void to_json(nlohmann::json& j, const AlertPage& p);

void to_json(nlohmann::json& j, const GpuEntry& e);
void to_json(nlohmann::json& j, const GpuList& l);
void to_json(nlohmann::json& j, const DriverEntry& e);
void to_json(nlohmann::json& j, const DriverList& l);
void to_json(nlohmann::json& j, const BenchmarkEntry& e);
void to_json(nlohmann::json& j, const BenchmarkPage& p);
void to_json(nlohmann::json& j, const SeriesEntry& e);
void to_json(nlohmann::json& j, const SeriesPage& p);

void to_json(nlohmann::json& j, const SeriesPoint& p);
void to_json(nlohmann::json& j, const CovariateChange& c);
void to_json(nlohmann::json& j, const Series& s);

void to_json(nlohmann::json& j, const CompareRow& r);
void to_json(nlohmann::json& j, const Comparison& c);

void to_json(nlohmann::json& j, const DriverRef& d);
void to_json(nlohmann::json& j, const RunSummary& r);
void to_json(nlohmann::json& j, const RunPage& p);
void to_json(nlohmann::json& j, const RunPointEntry& p);
void to_json(nlohmann::json& j, const NotMeasuredEntry& e);
void to_json(nlohmann::json& j, const RunDetail& r);
void to_json(nlohmann::json& j, const ResultRow& r);
void to_json(nlohmann::json& j, const RunResults& r);
void to_json(nlohmann::json& j, const IngestAnswer& a);

void to_json(nlohmann::json& j, const RankedVariant& v);
void to_json(nlohmann::json& j, const GpuRanking& g);
void to_json(nlohmann::json& j, const RankingFlip& f);
void to_json(nlohmann::json& j, const GpuTime& t);
void to_json(nlohmann::json& j, const VariantGpuOrder& o);
void to_json(nlohmann::json& j, const RankingGroup& g);
void to_json(nlohmann::json& j, const Rankings& r);

void to_json(nlohmann::json& j, const Vocabulary& v);

void to_json(nlohmann::json& j, const VerdictBrief& b);
void to_json(nlohmann::json& j, const RunWithVerdict& r);
void to_json(nlohmann::json& j, const DriverBuild& d);
void to_json(nlohmann::json& j, const GpuOverview& g);
void to_json(nlohmann::json& j, const Overview& o);
void to_json(nlohmann::json& j, const CorrectnessColumn& c);
void to_json(nlohmann::json& j, const CorrectnessCell& c);
void to_json(nlohmann::json& j, const CorrectnessRow& r);
void to_json(nlohmann::json& j, const CorrectnessMatrix& m);

void to_json(nlohmann::json& j, const VerdictBaseline& b);
void to_json(nlohmann::json& j, const CorrectnessEntry& e);
void to_json(nlohmann::json& j, const SuspectEntry& e);
void to_json(nlohmann::json& j, const SlowdownEntry& e);
void to_json(nlohmann::json& j, const SkippedEntry& e);
void to_json(nlohmann::json& j, const VerdictCoverage& c);
void to_json(nlohmann::json& j, const Explanation& e);
void to_json(nlohmann::json& j, const Verdict& v);
// GET /api/v1/runs/{id}/verdict: the verdict with each explanation's next steps (links at `dashboard`).
nlohmann::json verdict_json(const Verdict& v, const std::string& dashboard);

}  // namespace shaderwatch
