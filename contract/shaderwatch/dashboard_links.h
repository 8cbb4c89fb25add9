// Where the dashboard shows a run: the server's reports (summary.md, junit.xml, results.csv) and the bench's line
// after --post link to the same page.
#pragma once

#include <string>
#include <string_view>

namespace shaderwatch::contract {

// `base`: the dashboard's URL (the server's, unless it is served elsewhere), without a trailing slash.
inline std::string dashboard_page(std::string_view base, std::string_view page) {
  return std::string(base).append("/#/").append(page);
}
inline std::string dashboard_run_page(std::string_view base, std::string_view run_id) {
  return dashboard_page(base, std::string("runs/").append(run_id));
}

}  // namespace shaderwatch::contract
