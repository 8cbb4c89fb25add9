// GET /api/v1/compare: two runs, benchmark by benchmark (analysis::compare judges each pair).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <shaderwatch/result_contract.h>

#include "detection/analysis.h"
#include "queries/queries.h"
#include "queries/query_helpers.h"
#include "storage/result_sets.h"

using nlohmann::json;

namespace shaderwatch {

namespace {

// Each benchmark's own sample spread in a run, (p75 - p25) / median in percent, from the quartile
// counters shaderwatch-bench puts on its repetition rows (contract); benchmarks without them are absent.
std::map<std::string, double> run_spreads(sql::Conn& c, std::int64_t pk) {
  std::map<std::string, double> m;
  for (const auto& [name, s] : run_summaries(c, pk))
    if (!std::isnan(s.spread_pct)) m[name] = s.spread_pct;
  return m;
}

}  // namespace

Comparison Queries::compare(const Params& q) {
  allow_only(q, {"base", "contender", "alpha", "min_delta_pct", "min_delta_ns", "noise_floor"});
  auto base = opt(q, "base"), cont = opt(q, "contender");
  if (!base) throw ClientError(400, "missing required parameter", "base");
  if (!cont) throw ClientError(400, "missing required parameter", "contender");
  double alpha = 0.05;  // compare.py's default
  if (auto a = opt(q, "alpha")) {
    char* end = nullptr;
    alpha = std::strtod(a->c_str(), &end);
    if (a->empty() || *end != '\0' || !(alpha > 0 && alpha < 1)) throw ClientError(400, "must be in (0, 1)", "alpha");
  }
  // Repetitions from one process share its conditions, so the U test alone calls 0.2% between two
  // processes significant. A difference must also clear a floor, the largest of (LNT's
  // MIN_PERCENTAGE_CHANGE and MIN_VALUE_PRECISION, and its noise): min_delta_pct; min_delta_ns, what two
  // processes resolve at all (H200: kernels under 30 us moved up to 640 ns between identical runs);
  // and with noise_floor=1, the benchmark's own sample spread (p25-p75) in either run, where the rows
  // carry it (a short kernel's level shifts between processes by about its spread).
  analysis::CompareParams params;
  params.alpha = alpha;
  params.min_delta_pct = number_param(q, "min_delta_pct", 0, 1000, params.min_delta_pct);
  params.min_delta_ns = number_param(q, "min_delta_ns", 0, 1e9, params.min_delta_ns);
  const auto noise_text = opt(q, "noise_floor");
  if (noise_text && *noise_text != "0" && *noise_text != "1") throw ClientError(400, "must be 0 or 1", "noise_floor");
  params.noise_floor = !noise_text || *noise_text == "1";
  auto c = db_.reader();
  const auto bpk = run_pk(*c, *base, "base"), cpk = run_pk(*c, *cont, "contender");
  const auto bp = run_points(*c, db_.series_names(), bpk), cp = run_points(*c, db_.series_names(), cpk);
  const auto bs = run_spreads(*c, bpk), cs = run_spreads(*c, cpk);
  Comparison out{*base, *cont, params, {}, {}, {}, std::nullopt};
  double log_sum = 0;
  int n_geo = 0;
  for (const auto& [name, b] : bp) {
    auto it = cp.find(name);
    if (it == cp.end()) {
      out.only_in_base.push_back(name);
      continue;
    }
    const auto& k = it->second;
    const auto side = [](const RunPoint& point, const std::map<std::string, double>& spreads, const std::string& n) {
      analysis::RunSide r{point.value, point.reps, std::nullopt, point.errors > 0};
      if (auto it = spreads.find(n); it != spreads.end()) r.spread_pct = it->second;
      return r;
    };
    const auto result = analysis::compare(side(b, bs, name), side(k, cs, name), params);
    if (result.verdict != analysis::CompareVerdict::Error && b.value > 0 && k.value > 0) {
      log_sum += std::log(k.value / b.value);
      ++n_geo;
    }
    out.benchmarks.push_back({name, b.value, k.value, b.reps.size(), k.reps.size(), result});
  }
  for (const auto& [name, k] : cp)
    if (!bp.count(name)) out.only_in_contender.push_back(name);
  if (n_geo) out.geomean_delta_pct = 100 * std::expm1(log_sum / n_geo);
  return out;
}

}  // namespace shaderwatch
