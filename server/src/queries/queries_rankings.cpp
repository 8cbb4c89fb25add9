// GET /api/v1/rankings: at one commit, each GPU's variants fastest first, the flips between GPUs and
// the GPUs fastest first per variant, each lead named only beyond the series' noise.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "detection/analysis.h"
#include "common/statistics.h"
#include "ingest/benchmark_name.h"
#include "ingest/format2_operations.h"
#include "queries/queries.h"
#include "queries/query_helpers.h"
#include "queries/run_counters.h"

namespace shaderwatch {

namespace {

// Run-to-run noise of a series (relative: robust sigma of log values) over its last 24 points up to a
// run; 0 with fewer than 6 (then only kMinFlipRel guards the flip).
double series_noise(sql::Conn& c, std::int64_t sid, std::int64_t ms, std::int64_t run_pk) {
  auto& st = c.q("SELECT value_ns FROM points WHERE series_id=? AND (started_ms, run_id) <= (?, ?) AND on_main=1"
                 " AND value_ns IS NOT NULL ORDER BY started_ms DESC, run_id DESC LIMIT 24");
  st.bind(1, sid).bind(2, ms).bind(3, run_pk);
  std::vector<double> logs;
  while (st.step()) logs.push_back(std::log(std::max(st.f64(0), 1e-6)));
  return logs.size() >= 6 ? stats::mad_sigma(logs) : 0.0;
}

// kernel -> the operation it computes ("luminance sum", "tone mapping", ...), as the commit's runs said it.
using Operations = std::map<std::string, std::string>;

// What the commit's runs say each kernel computes (the newest run's word); a kernel no run said it of (stored
// before format 3) is read by format 2's catalog.
Operations operations_at(sql::Conn& c, const std::string& commit) {
  Operations ops;
  auto& st = c.q("SELECT rc.kernel, rc.operation FROM run_compiled rc JOIN runs r ON r.id=rc.run_id"
                 " WHERE r.commit_id=? AND rc.operation<>'' ORDER BY r.started_ms DESC, r.id DESC");
  st.bind(1, commit);
  while (st.step()) ops.emplace(st.text(0), st.text(1));
  return ops;
}

std::string variant_operation(const Operations& ops, const std::string& family, const std::string& variant) {
  const std::string kernel = NameParts{family, variant}.kernel();
  const auto it = ops.find(kernel);
  return it != ops.end() ? it->second : format2_operation(kernel);
}

// A GPU that ran the commit: its runs at it, newest first (a benchmark's figure is its latest at the commit,
// so a partial run, one size or a filter, adds to the full one rather than hiding it).
struct GpuRuns {
  GpuRef gpu;
  std::string run;                  // the newest
  std::vector<std::int64_t> runs;   // newest first
};

std::vector<GpuRuns> gpus_at(sql::Conn& c, const std::string& commit) {
  std::vector<GpuRuns> gs;
  auto& st = c.q("SELECT r.id, r.run_key, g.id, g.vendor_id, g.device_id, g.name, g.device_type FROM runs r"
                 " JOIN gpus g ON g.id=r.gpu_id WHERE r.commit_id=? ORDER BY g.id, r.started_ms DESC, r.id DESC");
  st.bind(1, commit);
  while (st.step()) {
    if (gs.empty() || gs.back().gpu.id != st.i64(2))
      gs.push_back({{st.i64(2), st.text(3), st.text(4), st.text(5), st.text(6)}, st.text(1), {}});
    gs.back().runs.push_back(st.i64(0));
  }
  return gs;
}

// (family, config) -> GPU index -> variant -> its value and noise (relative)
using RankingGroups = std::map<std::pair<std::string, std::string>, std::map<std::size_t, analysis::GpuVariants>>;

// Every variant's latest value at the commit on each GPU, with its noise: the series' run-to-run spread, or
// with little history the run's own sample spread (p25-p75 as a standard deviation) where that is larger.
// `counters`: each GPU's benchmarks' counters, for the roofline columns.
RankingGroups variant_values(sql::Conn& c, const std::vector<GpuRuns>& gs, const std::optional<std::string>& family,
                             std::vector<std::map<std::string, BenchmarkCounters>>& counters) {
  RankingGroups groups;
  counters.assign(gs.size(), {});
  for (std::size_t gi = 0; gi < gs.size(); ++gi) {
    for (const std::int64_t run_pk : gs[gi].runs) {
      std::map<std::string, BenchmarkCounters> run = run_counters(c, run_pk);
      auto& st = c.q("SELECT bm.family, bm.variant, bm.config, p.value_ns, p.series_id, p.started_ms FROM points p"
                     " JOIN series s ON s.id=p.series_id JOIN benchmarks bm ON bm.id=s.benchmark_id WHERE p.run_id=?"
                     " AND p.value_ns IS NOT NULL");
      st.bind(1, run_pk);
      std::vector<std::tuple<std::string, std::string, std::string, double, std::int64_t, std::int64_t>> rows;
      while (st.step()) {
        if (family && *family != st.text(0)) continue;
        rows.emplace_back(st.text(0), st.text(1), st.text(2), st.f64(3), st.i64(4), st.i64(5));
      }
      for (const auto& [fam, variant, config, value, sid, ms] : rows) {
        auto& slot = groups[{fam, config}][gi];
        if (slot.count(variant)) continue;  // a newer run at this commit gave it
        const std::string name = fam + "/" + variant + "/" + config;
        const auto k = run.find(name);
        double noise = series_noise(c, sid, ms, run_pk);
        if (k != run.end() && std::isfinite(k->second.p75_ns - k->second.p25_ns) && value > 0)
          noise = std::max(noise, (k->second.p75_ns - k->second.p25_ns) / value / stats::kIqrSigmas);
        slot[variant] = {value, noise};
        if (k != run.end()) counters[gi].emplace(name, k->second);
      }
    }
  }
  return groups;
}

// Each GPU's variants fastest first, with their noise, operation and roofline figures.
std::vector<GpuRanking> rank_by_gpu(const std::pair<std::string, std::string>& key,
                               const std::map<std::size_t, analysis::GpuVariants>& per_gpu, const std::vector<GpuRuns>& gs,
                               const std::vector<std::map<std::string, BenchmarkCounters>>& counters, const Operations& ops) {
  std::vector<GpuRanking> by_gpu;
  for (const auto& [gi, vars] : per_gpu) {
    std::vector<std::pair<double, std::string>> r;
    for (const auto& [v, t] : vars) r.emplace_back(t.value, v);
    std::sort(r.begin(), r.end());
    GpuRanking& g = by_gpu.emplace_back(GpuRanking{gs[gi].gpu, gs[gi].run, {}});
    for (std::size_t i = 0; i < r.size(); ++i) {
      const auto k = counters[gi].find(key.first + "/" + r[i].second + "/" + key.second);
      const bool known = k != counters[gi].end();
      g.ranking.push_back({i + 1, r[i].second, r[i].first, vars.at(r[i].second).noise,
                           variant_operation(ops, key.first, r[i].second), known ? k->second.pct_of_roofline : NAN,
                           known ? k->second.pct_of_copy_peak : NAN});
    }
  }
  return by_gpu;
}

// Flips only between variants of one operation: a tone mapper is not ranked against a DoF tile pass.
std::vector<RankingFlip> flips_between(const std::string& family, const std::map<std::size_t, analysis::GpuVariants>& per_gpu,
                               const std::vector<GpuRuns>& gs, const Operations& ops) {
  std::vector<RankingFlip> flips;
  std::map<std::string, std::map<std::size_t, analysis::GpuVariants>> by_operation;
  for (const auto& [gi, vars] : per_gpu)
    for (const auto& [v, t] : vars) by_operation[variant_operation(ops, family, v)][gi][v] = t;
  for (const auto& [operation, same_operation] : by_operation)
    for (const auto& f : analysis::flips(same_operation))
      flips.push_back({operation, gs[f.gpu_a].gpu.name, gs[f.gpu_b].gpu.name, f.faster_on_a, f.faster_on_b,
                       100 * f.gap_on_a_rel, 100 * f.gap_on_b_rel});
  return flips;
}

// Per variant, the GPUs fastest first (where an older GPU beats a newer one shows here), and the fastest
// named only where its lead is beyond both series' noise (analysis::clear_gap), else a tie.
std::vector<VariantGpuOrder> order_gpus(const std::map<std::size_t, analysis::GpuVariants>& per_gpu,
                                       const std::vector<GpuRuns>& gs) {
  std::vector<VariantGpuOrder> gpu_order;
  std::map<std::string, std::vector<std::tuple<double, std::string, double>>> per_var;
  for (const auto& [gi, vars] : per_gpu)
    for (const auto& [v, t] : vars) per_var[v].emplace_back(t.value, gs[gi].gpu.name, t.noise);
  for (auto& [v, list] : per_var) {
    std::sort(list.begin(), list.end());
    VariantGpuOrder& o = gpu_order.emplace_back(VariantGpuOrder{v, {}, std::nullopt, false});
    for (auto& [val, n, noise] : list) o.fastest_first.push_back({n, val});
    if (list.size() >= 2) {
      const auto& [v0, n0, e0] = list[0];
      const auto& [v1, n1, e1] = list[1];
      if (analysis::clear_gap(v0, v1, e0, e1)) o.fastest = n0;
    }
    o.tie = list.size() >= 2 && !o.fastest;
  }
  return gpu_order;
}

}  // namespace

Rankings Queries::rankings(const Params& q) {
  allow_only(q, {"commit", "family"});
  auto commit = opt(q, "commit");
  if (!commit) throw ClientError(400, "missing required parameter", "commit");
  auto c = db_.reader();
  const std::vector<GpuRuns> gs = gpus_at(*c, *commit);
  if (gs.empty()) throw ClientError(404, "no runs at commit '" + *commit + "'", "commit");
  std::vector<std::map<std::string, BenchmarkCounters>> counters;
  const RankingGroups groups = variant_values(*c, gs, opt(q, "family"), counters);
  const Operations ops = operations_at(*c, *commit);
  Rankings out{*commit, {}};
  for (const auto& [key, per_gpu] : groups)
    out.groups.push_back({key.first, key.second, rank_by_gpu(key, per_gpu, gs, counters, ops),
                          flips_between(key.first, per_gpu, gs, ops), order_gpus(per_gpu, gs)});
  return out;
}

}  // namespace shaderwatch
