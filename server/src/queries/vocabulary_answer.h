// GET /api/v1/vocabulary as a value: the names the API uses, so clients spell none by hand.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace shaderwatch {

struct Vocabulary {
  std::vector<std::string> alert_states, open_alert_states, alert_kinds;
  // What the dashboard needs to know of the words: the correctness kinds (a wrong answer, no cause), the
  // performance kinds drawn as before/after levels, and whether each kind is better, worse or unclear.
  std::vector<std::string> correctness_alert_kinds, level_alert_kinds;
  std::vector<std::string> spread_alert_kinds;  // a change in run-to-run noise, not in level
  std::map<std::string, std::string> alert_kind_tones;
  std::vector<std::string> causes, outcomes;
  std::string main_branch;
};

}  // namespace shaderwatch
