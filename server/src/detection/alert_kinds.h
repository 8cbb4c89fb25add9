// The detector's vocabulary: what a change point is, every kind of alert, and the causes an alert is
// attributed to. The store, the API's /vocabulary and the verdict spell them from here.
#pragma once

#include <optional>
#include <string_view>

namespace shaderwatch::detect {

enum class ChangeKind { None, Regression, Improvement, Ambiguous };
const char* to_string(ChangeKind o);

// Every kind of alert, most severe first: the one vocabulary of the store, the API and the verdict.
// Noise: the series' run-to-run noise changed (detection/noise_change.h), its level need not have.
enum class AlertKind { CorrectnessRegression, CorrectnessFailure, Regression, Ambiguous, Improvement, Noise };
inline constexpr AlertKind kAlertKinds[] = {AlertKind::CorrectnessRegression, AlertKind::CorrectnessFailure,
                                            AlertKind::Regression, AlertKind::Ambiguous, AlertKind::Improvement,
                                            AlertKind::Noise};
const char* to_string(AlertKind k);
std::optional<AlertKind> parse_alert_kind(std::string_view text);
int severity(AlertKind k);  // 4 (correctness regression) .. 0 (improvement, noise)
// The alert kind of a change point's outcome (none has none).
std::optional<AlertKind> alert_kind(ChangeKind o);

enum class Cause { Driver, Commit, Both, Machine, Neither };
const char* to_string(Cause c);

}  // namespace shaderwatch::detect
