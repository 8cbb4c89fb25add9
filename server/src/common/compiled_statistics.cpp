#include "common/compiled_statistics.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

namespace shaderwatch {

namespace {

// As people read it: integers without a decimal point.
std::string number_text(double v) {
  nlohmann::json j = v;
  if (v == static_cast<double>(static_cast<long long>(v))) j = static_cast<long long>(v);
  return j.dump();
}

const CompiledStatistic* find_named(const std::vector<CompiledStatistic>& stats, const std::string& name) {
  const auto it = std::find_if(stats.begin(), stats.end(), [&](const CompiledStatistic& s) { return s.name == name; });
  return it == stats.end() ? nullptr : &*it;
}

}  // namespace

std::vector<CompiledStatistic> flatten_statistics(std::string_view pipelines_json) {
  std::vector<CompiledStatistic> out;
  const auto pipelines = nlohmann::json::parse(pipelines_json, nullptr, false);
  if (!pipelines.is_array()) return out;  // stored by ingest after validation: never, but never a throw on a read
  std::set<std::string> seen;
  for (std::size_t p = 0; p < pipelines.size(); ++p) {
    for (const auto& executable : pipelines[p]) {
      for (const auto& s : executable.value("statistics", nlohmann::json::array())) {
        const std::string stage = executable.value("executable", ""), statistic = s.value("name", "");
        std::string name = stage + " " + statistic;
        if (seen.count(name)) name = "pipeline " + std::to_string(p + 1) + " " + name;
        seen.insert(name);
        const auto& v = s["value"];
        out.push_back({std::move(name), stage, statistic,
                       v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.is_number() ? v.get<double>() : 0.0});
      }
    }
  }
  return out;
}

std::vector<StatisticChange> statistic_changes(const std::vector<CompiledStatistic>& before,
                                               const std::vector<CompiledStatistic>& after) {
  std::vector<StatisticChange> out;
  const auto text = [](const CompiledStatistic* s) { return s ? number_text(s->value) : std::string("absent"); };
  for (const auto& b : before) {
    const auto* a = find_named(after, b.name);
    if (a && a->value == b.value) continue;
    out.push_back({b.name, text(&b), text(a)});
  }
  for (const auto& a : after)
    if (!find_named(before, a.name)) out.push_back({a.name, text(nullptr), text(&a)});
  return out;
}

std::pair<std::string, std::string> statistics_difference(const std::vector<CompiledStatistic>& before,
                                                          const std::vector<CompiledStatistic>& after) {
  std::string was, now;
  for (const auto& c : statistic_changes(before, after)) {
    was.append(was.empty() ? "" : "; ").append(c.name).append(" ").append(c.before);
    now.append(now.empty() ? "" : "; ").append(c.name).append(" ").append(c.after);
  }
  return {was, now};
}

}  // namespace shaderwatch
