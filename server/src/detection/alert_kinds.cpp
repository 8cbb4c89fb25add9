#include "detection/alert_kinds.h"

namespace shaderwatch::detect {

const char* to_string(ChangeKind o) {
  switch (o) {
    case ChangeKind::Regression: return "regression";
    case ChangeKind::Improvement: return "improvement";
    case ChangeKind::Ambiguous: return "ambiguous";
    case ChangeKind::None: break;
  }
  return "none";
}

const char* to_string(AlertKind k) {
  switch (k) {
    case AlertKind::CorrectnessRegression: return "correctness_regression";
    case AlertKind::CorrectnessFailure: return "correctness_failure";
    case AlertKind::Regression: return "regression";
    case AlertKind::Ambiguous: return "ambiguous";
    case AlertKind::Improvement: return "improvement";
    case AlertKind::Noise: return "noise";
  }
  return "ambiguous";
}

std::optional<AlertKind> parse_alert_kind(std::string_view text) {
  for (AlertKind k : kAlertKinds)
    if (text == to_string(k)) return k;
  return std::nullopt;
}

int severity(AlertKind k) {
  switch (k) {
    case AlertKind::CorrectnessRegression: return 4;
    case AlertKind::CorrectnessFailure: return 3;
    case AlertKind::Regression: return 2;
    case AlertKind::Ambiguous: return 1;
    case AlertKind::Improvement: return 0;
    case AlertKind::Noise: return 0;
  }
  return 0;
}

std::optional<AlertKind> alert_kind(ChangeKind o) {
  switch (o) {
    case ChangeKind::Regression: return AlertKind::Regression;
    case ChangeKind::Improvement: return AlertKind::Improvement;
    case ChangeKind::Ambiguous: return AlertKind::Ambiguous;
    case ChangeKind::None: break;
  }
  return std::nullopt;
}

const char* to_string(Cause c) {
  switch (c) {
    case Cause::Driver: return "driver";
    case Cause::Commit: return "commit";
    case Cause::Both: return "both";
    case Cause::Machine: return "machine";
    case Cause::Neither: break;
  }
  return "neither";
}

}  // namespace shaderwatch::detect
