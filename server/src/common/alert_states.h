// An alert's triage states, one list for the store, the API's vocabulary and the filters.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace shaderwatch {

// The alerts table's CHECK says the same.
inline const std::set<std::string> kAlertStates = {"new", "acknowledged", "expected", "fixed", "invalid"};
// The states that are still open: they gate, count on the overview, match the filter "open".
inline const std::vector<std::string> kOpenAlertStates = {"new", "acknowledged"};
// The same as an SQL list: "('new','acknowledged')".
inline std::string open_alert_states_sql() {
  std::string list;
  for (const auto& s : kOpenAlertStates) list += (list.empty() ? "('" : ",'") + s + "'";
  return list + ")";
}

}  // namespace shaderwatch
