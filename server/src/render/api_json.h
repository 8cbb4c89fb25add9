// The JSON API's answers, rendered from the read side's values (queries/*_answer.h): the one place their
// JSON is spelled, one renderer per struct (nlohmann's to_json, so lists of them render as arrays).
#pragma once

#include <nlohmann/json.hpp>

#include "queries/alert_answer.h"
#include "queries/answer_common.h"
#include "queries/verdict_answer.h"

namespace shaderwatch {

void to_json(nlohmann::json& j, const GpuRef& g);
void to_json(nlohmann::json& j, const Alert& a);
void to_json(nlohmann::json& j, const AlertPage& p);

void to_json(nlohmann::json& j, const VerdictBaseline& b);
void to_json(nlohmann::json& j, const CorrectnessEntry& e);
void to_json(nlohmann::json& j, const SuspectEntry& e);
void to_json(nlohmann::json& j, const SlowdownEntry& e);
void to_json(nlohmann::json& j, const SkippedEntry& e);
void to_json(nlohmann::json& j, const VerdictCoverage& c);
void to_json(nlohmann::json& j, const Verdict& v);

}  // namespace shaderwatch
