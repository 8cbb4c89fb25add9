// Fleet simulation: scenarios (the truth), document generation, and scoring against the truth.
#include "fleet_scenarios.h"
#include "fleet_noise.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <stdexcept>

#include "service/store.h"
#include "common/iso8601.h"

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace shaderwatch::fleet {

const char* to_string(Noise n) {
  switch (n) {
    case Noise::Gauss: return "gauss";
    case Noise::Heavy: return "heavy";
    case Noise::Twomode: return "twomode";
    case Noise::Reps: return "reps";
    case Noise::Real: return "real";
  }
  return "?";
}

std::optional<Noise> parse_noise(std::string_view s) {
  for (Noise n : {Noise::Gauss, Noise::Heavy, Noise::Twomode, Noise::Reps, Noise::Real})
    if (s == to_string(n)) return n;
  return std::nullopt;
}

std::string kernel_name(int k) { return std::string("lum/var").append(std::to_string(k)); }

std::string bench_name(int k) { return kernel_name(k).append("/1920x1080/cold"); }

double base_ns(int k, int n) {
  // Log-spaced so every decade between 10 us and 5 ms has series in it.
  return n <= 1 ? 1e4 : 1e4 * std::pow(500.0, static_cast<double>(k) / (n - 1));
}

// Appends rather than `"literal" + std::string`, which trips GCC 12's bogus -Wrestrict under -O2.
std::string gpu_name(int g) { return std::string("Fleet GPU ").append(std::to_string(g)); }

Plan::Plan(const TrialParams& p)
    : gpus(p.gpus), runs(p.runs), benchmarks(p.benchmarks), step_run(p.runs / 2),
      level(static_cast<std::size_t>(p.gpus * p.runs * p.benchmarks), 1.0),
      fails(level.size(), 0),
      driver(static_cast<std::size_t>(p.gpus * p.runs), "580.1.0.0"),
      runner(driver.size()), noise(driver.size(), 1.0),
      spirv(static_cast<std::size_t>(p.runs * p.benchmarks), 0), compiled(level.size(), 0) {
  for (int g = 0; g < gpus; ++g)
    for (int r = 0; r < runs; ++r) rnr(g, r) = std::string("runner-").append(std::to_string(g));
}

namespace {

// Scenario building blocks. The change run is runs/2 (30 of the default 60): enough history
// before it (the detector needs 18 points) and enough runs after it to confirm a step.
void new_driver(Plan& pl, int g, int from) {
  for (int r = from; r < pl.runs; ++r) pl.drv(g, r) = "580.2.0.0";
}
void slow(Plan& pl, int g, int b, int from, double factor, const char* kind) {
  for (int r = from; r < pl.runs; ++r) pl.lvl(g, r, b) *= factor;
  pl.changes.push_back({g, b, from, kind});
}
int pick(std::mt19937_64& rng, int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }

Plan aa(const TrialParams& p, std::mt19937_64&) { return Plan(p); }

// A commit at run `at` makes one benchmark `factor` times slower on every GPU.
// A commit from run `from` on changes benchmark b's kernel (its SPIR-V, on every GPU).
void new_spirv(Plan& pl, int b, int from) {
  for (int r = from; r < pl.runs; ++r) pl.spv(r, b) = 1;
}

Plan commit_step(const TrialParams& p, std::mt19937_64& rng, int at, double factor) {
  Plan pl(p);
  pl.step_run = at;
  const int b = pick(rng, p.benchmarks);
  for (int g = 0; g < p.gpus; ++g) slow(pl, g, b, at, factor, "regression");
  new_spirv(pl, b, at);
  return pl;
}

Plan code_step(const TrialParams& p, std::mt19937_64& rng) { return commit_step(p, rng, p.runs / 2, 1.03); }
// A small step (1.5%, about the run-to-run noise) at R/2; and a 3% one with most of the runs as history.
Plan small_step(const TrialParams& p, std::mt19937_64& rng) { return commit_step(p, rng, p.runs / 2, 1.015); }
Plan late_step(const TrialParams& p, std::mt19937_64& rng) {
  return commit_step(p, rng, std::max(1, p.runs - p.runs / 6), 1.03);
}

// The benchmarks in a random order (a driver's changes fall on some of them).
std::vector<int> shuffled_benchmarks(const TrialParams& p, std::mt19937_64& rng) {
  std::vector<int> idx(static_cast<std::size_t>(p.benchmarks));
  std::iota(idx.begin(), idx.end(), 0);
  std::shuffle(idx.begin(), idx.end(), rng);
  return idx;
}

Plan driver_step(const TrialParams& p, std::mt19937_64& rng) {
  Plan pl(p);
  new_driver(pl, 0, pl.step_run);
  const auto idx = shuffled_benchmarks(p, rng);
  for (int i = 0; i < std::max(1, p.benchmarks / 3); ++i)
    slow(pl, 0, idx[static_cast<std::size_t>(i)], pl.step_run, 1.03, "regression");
  return pl;
}

// As driver_step, but the new driver compiles 2/3 of GPU 0's kernels differently (other statistics): the third
// that is slower, and a third that is not.
Plan driver_compiler(const TrialParams& p, std::mt19937_64& rng) {
  Plan pl(p);
  new_driver(pl, 0, pl.step_run);
  const auto idx = shuffled_benchmarks(p, rng);
  const int third = std::max(1, p.benchmarks / 3);
  for (int i = 0; i < std::min(p.benchmarks, 2 * third); ++i) {
    const int b = idx[static_cast<std::size_t>(i)];
    for (int r = pl.step_run; r < p.runs; ++r) pl.cmp(0, r, b) = 1;
    if (i < third) slow(pl, 0, b, pl.step_run, 1.03, "regression");
  }
  return pl;
}

// Evidence against the covariates: GPU 0's driver changes at R/2, compiling everything the same and moving no
// time; at the same run a commit changes one kernel's SPIR-V, 3% slower on GPU 0 only (a path only that GPU
// takes), so the other GPUs at that commit do not step.
Plan driver_quiet_code(const TrialParams& p, std::mt19937_64& rng) {
  Plan pl(p);
  new_driver(pl, 0, pl.step_run);
  const int b = pick(rng, p.benchmarks);
  new_spirv(pl, b, pl.step_run);
  slow(pl, 0, b, pl.step_run, 1.03, "regression");
  return pl;
}

Plan machine_step(const TrialParams& p, std::mt19937_64&) {
  Plan pl(p);
  for (int r = pl.step_run; r < p.runs; ++r) pl.rnr(0, r) = "runner-0-replacement";
  for (int b = 0; b < p.benchmarks; ++b) slow(pl, 0, b, pl.step_run, 1.04, "regression");
  return pl;
}

// GPU 0 moves at R/2 to a runner with 4x the run-to-run noise, its level unchanged: nothing to find.
Plan noisy_runner(const TrialParams& p, std::mt19937_64&) {
  Plan pl(p);
  for (int r = pl.step_run; r < p.runs; ++r) pl.rnr(0, r) = "runner-0-noisy", pl.nz(0, r) = 4;
  return pl;
}

// GPU 0 on a runner with 4x the run-to-run noise all along: nothing to find.
Plan noisy_gpu(const TrialParams& p, std::mt19937_64&) {
  Plan pl(p);
  for (int r = 0; r < p.runs; ++r) pl.nz(0, r) = 4;
  return pl;
}

// A commit at R/2 makes one benchmark 4% slower on every GPU; another reverts it 12 runs later.
Plan revert(const TrialParams& p, std::mt19937_64& rng) {
  Plan pl = commit_step(p, rng, p.runs / 2, 1.04);
  const int back = std::min(p.runs, pl.step_run + 12);
  for (auto& c : pl.changes) {
    c.until = back;
    for (int r = back; r < p.runs; ++r) pl.lvl(c.gpu, r, c.bench) /= 1.04, pl.spv(r, c.bench) = 0;
  }
  return pl;
}

Plan driver_commit(const TrialParams& p, std::mt19937_64& rng) {
  Plan pl(p);
  new_driver(pl, 0, pl.step_run);
  const int b = pick(rng, p.benchmarks);
  for (int g = 0; g < p.gpus; ++g) slow(pl, g, b, pl.step_run, 1.03, "regression");
  new_spirv(pl, b, pl.step_run);
  return pl;
}

Plan drift(const TrialParams& p, std::mt19937_64& rng) {
  Plan pl(p);
  pl.step_run = p.runs / 3;  // 20 of 60
  const int b = pick(rng, p.benchmarks);
  for (int r = pl.step_run; r < p.runs; ++r) pl.lvl(0, r, b) *= std::pow(1.001, r - pl.step_run + 1);
  pl.changes.push_back({0, b, pl.step_run, "regression"});
  return pl;
}

// A large slowdown of one benchmark on every GPU: at R/2 (a mature series), or at run 1 (the second run of a
// new deployment: one run of history).
Plan step_large(const TrialParams& p, std::mt19937_64& rng) { return commit_step(p, rng, p.runs / 2, 3.6); }
Plan cold_large(const TrialParams& p, std::mt19937_64& rng) { return commit_step(p, rng, 1, 3.6); }

Plan improvement(const TrialParams& p, std::mt19937_64& rng) {
  Plan pl(p);
  const int b = pick(rng, p.benchmarks);
  for (int g = 0; g < p.gpus; ++g) slow(pl, g, b, pl.step_run, 1 / 1.03, "improvement");
  new_spirv(pl, b, pl.step_run);
  return pl;
}

Plan correctness(const TrialParams& p, std::mt19937_64& rng) {
  Plan pl(p);
  new_driver(pl, 0, pl.step_run);
  const int b = pick(rng, p.benchmarks);
  for (int r = pl.step_run; r < p.runs; ++r) pl.fail(0, r, b) = 1;
  pl.changes.push_back({0, b, pl.step_run, "correctness"});
  return pl;
}

// Kernel b's SPIR-V hash at version v: one per (kernel, version).
std::string spirv_hash(int b, int v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%06x%010x", b, v + 1);
  return buf;
}

// The compiled section (contract::kCompiledSection) of GPU g's run r: each kernel's SPIR-V and two statistics,
// which a new SPIR-V or a new compilation of it changes.
std::string compiled_section(Plan& pl, int g, int r) {
  std::string out = ",\"sw_compiled\":{";
  char buf[400];
  for (int b = 0; b < pl.benchmarks; ++b) {
    const int spirv = pl.spv(r, b), compiled = pl.cmp(g, r, b);
    std::snprintf(buf, sizeof buf,
                  "%s\"%s\":{\"spirv\":\"%s\",\"input\":\"random@1\",\"pipelines\":[[{\"executable\":\"CS\","
                  "\"subgroup_size\":32,\"statistics\":[{\"name\":\"Register Count\",\"format\":\"uint64\",\"value\":%d},"
                  "{\"name\":\"Binary Size\",\"format\":\"uint64\",\"value\":%d}]}]]}",
                  b ? "," : "", kernel_name(b).c_str(), spirv_hash(b, spirv).c_str(), 16 + b % 8 + 4 * spirv + 2 * compiled,
                  1024 + 128 * (b % 4) + 256 * spirv + 64 * compiled);
    out += buf;
  }
  return out + "}";
}

// One Google Benchmark document for GPU g's run r, formatted by hand like the load test; with what ran (each
// row's SPIR-V label, the compiled section) where `compiled`.
std::string make_doc(Plan& pl, int g, int r, int reps, NoiseGen& ng, bool compiled) {
  std::string out;
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "{\"context\":{\"date\":\"2026-01-01T00:00:00+00:00\",\"host_name\":\"%s\","
                "\"sw_device_name\":\"%s\",\"sw_vendor_id\":\"0x10de\",\"sw_device_id\":\"0x%x\","
                "\"sw_driver_name\":\"NVIDIA\",\"sw_driver_version\":\"%s\",\"sw_api_version\":\"1.4.312\"},"
                "\"benchmarks\":[",
                pl.rnr(g, r).c_str(), gpu_name(g).c_str(), 0x2680 + g, pl.drv(g, r).c_str());
  out += buf;
  for (int b = 0; b < pl.benchmarks; ++b) {
    const std::string name = bench_name(b);
    const std::string label = compiled ? ",\"label\":\"spirv:" + spirv_hash(b, pl.spv(r, b)) + " stop:time-limit\"" : "";
    // Noise is drawn even for failing benchmarks, so every scenario sees the same noise stream.
    const double ns = base_ns(b, pl.benchmarks);
    const double level = ns * pl.lvl(g, r, b) * ng.run_factor(pl.nz(g, r), ns, g, b);
    double sum = 0;
    for (int i = 0; i < reps; ++i) {
      const double v = level * ng.rep_factor(pl.nz(g, r), ns);
      sum += v;
      if (pl.fail(g, r, b)) {
        // Google Benchmark's shape for SkipWithError: no times, no aggregates.
        std::snprintf(buf, sizeof buf,
                      "%s{\"name\":\"%s\",\"family_index\":%d,\"per_family_instance_index\":0,\"run_name\":\"%s\","
                      "\"run_type\":\"iteration\",\"repetitions\":%d,\"repetition_index\":%d,\"threads\":1,"
                      "\"error_occurred\":true,\"error_message\":\"FAIL: wrong sum\"%s}",
                      b || i ? "," : "", name.c_str(), b, name.c_str(), reps, i, label.c_str());
      } else {
        std::snprintf(buf, sizeof buf,
                      "%s{\"name\":\"%s\",\"family_index\":%d,\"per_family_instance_index\":0,\"run_name\":\"%s\","
                      "\"run_type\":\"iteration\",\"repetitions\":%d,\"repetition_index\":%d,\"threads\":1,"
                      "\"iterations\":1000,\"real_time\":%.3f,\"cpu_time\":%.3f,\"time_unit\":\"ns\"%s}",
                      b || i ? "," : "", name.c_str(), b, name.c_str(), reps, i, v, v, label.c_str());
      }
      out += buf;
    }
    if (pl.fail(g, r, b)) continue;
    for (const char* agg : {"mean", "median", "stddev"}) {
      const double val = agg[0] == 's' ? 0.0 : sum / reps;  // aggregates are not series: rough is fine
      std::snprintf(buf, sizeof buf,
                    ",{\"name\":\"%s_%s\",\"family_index\":%d,\"per_family_instance_index\":0,\"run_name\":\"%s\","
                    "\"run_type\":\"aggregate\",\"repetitions\":%d,\"threads\":1,\"aggregate_name\":\"%s\","
                    "\"aggregate_unit\":\"time\",\"iterations\":%d,\"real_time\":%.3f,\"cpu_time\":%.3f,"
                    "\"time_unit\":\"ns\"}",
                    name.c_str(), agg, b, name.c_str(), reps, agg, reps, val, val);
      out += buf;
    }
  }
  out += "]";
  if (compiled) out += compiled_section(pl, g, r);
  out += "}";
  return out;
}

std::string run_id(int g, int r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "g%d-r%d", g, r);
  return buf;
}
// (gpu, run) of a run id made by run_id(); (-1, -1) otherwise.
std::pair<int, int> parse_run_id(const std::string& id) {
  int g = -1, r = -1;
  if (std::sscanf(id.c_str(), "g%d-r%d", &g, &r) != 2) return {-1, -1};
  return {g, r};
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "swfleet.XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error(std::string("mkdtemp failed: ").append(tmpl));
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

bool accepts(const std::string& change_kind, const std::string& alert_kind) {
  if (change_kind == "correctness")
    return alert_kind == "correctness_regression" || alert_kind == "correctness_failure";
  return alert_kind == change_kind;
}

}  // namespace

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> all = {
      {"aa", "", "", "no change (negative control)", aa},
      {"code_step", "commit", "code", "a commit at run R/2 makes one benchmark 3% slower on every GPU", code_step},
      {"driver_step", "driver", "driver runtime",
       "GPU 0's driver changes at R/2; 1/3 of its benchmarks 3% slower, compiled as before", driver_step},
      {"machine_step", "machine", "machine", "GPU 0's runner changes at R/2; all its benchmarks 4% slower", machine_step},
      {"driver_commit", "commit", "code",
       "GPU 0's driver changes at R/2 with a commit slowing one benchmark 3% on every GPU", driver_commit},
      {"drift", "", "", "one benchmark on GPU 0 0.1% slower per run from run R/3", drift},
      {"improvement", "", "", "one benchmark 3% faster on every GPU from R/2", improvement},
      {"correctness", "driver", "", "one benchmark on GPU 0 fails from R/2, with a driver update there", correctness},
      {"step_3.6x", "commit", "code", "a commit at run R/2 makes one benchmark 3.6x slower on every GPU", step_large},
      {"cold_3.6x", "", "", "a commit at run 1 (one run of history) makes one benchmark 3.6x slower on every GPU",
       cold_large},
      {"branch_aa", "", "", "no change on main; after every main run a branch run forked from it (A/A)", aa, 1.0},
      {"branch_10pct", "", "", "no change on main; after every main run a branch run with one benchmark 10% slower", aa,
       1.10},
      {"branch_25pct", "", "", "no change on main; after every main run a branch run with one benchmark 25% slower", aa,
       1.25},
      {"branch_2x", "", "", "no change on main; after every main run a branch run with one benchmark 2x slower", aa, 2.0},
      {"branch_3.6x", "", "", "no change on main; after every main run a branch run with one benchmark 3.6x slower", aa,
       3.6},
      // Issue 28's cases: a change of noise is no regression; small steps are found, and stay open while there.
      {"noisy_runner", "", "", "GPU 0 moves at R/2 to a runner with 4x the run-to-run noise; no change in level",
       noisy_runner},
      {"noisy_gpu", "", "", "GPU 0 on a runner with 4x the run-to-run noise all along; no change in level", noisy_gpu},
      {"step_1.5pct", "commit", "code", "a commit at run R/2 makes one benchmark 1.5% slower on every GPU", small_step},
      {"late_3pct", "commit", "code",
       "a commit at run 5R/6 (50 runs of history of 60) makes one benchmark 3% slower on every GPU", late_step},
      {"revert", "commit", "code",
       "a commit at run R/2 makes one benchmark 4% slower on every GPU; reverted 12 runs later", revert},
      // Issue 30's cases: what was compiled decides the cause.
      {"driver_compiler", "driver", "driver compiler",
       "GPU 0's driver changes at R/2 and compiles 2/3 of its kernels differently; 1/3 of them 3% slower",
       driver_compiler},
      {"driver_quiet_code", "commit", "code",
       "GPU 0's driver changes at R/2 moving nothing; the same run's commit changes one kernel's SPIR-V, 3% slower "
       "on GPU 0 only",
       driver_quiet_code},
  };
  return all;
}

const Scenario* find_scenario(std::string_view name) {
  for (const auto& s : scenarios())
    if (s.name == name) return &s;
  return nullptr;
}

TrialResult run_trial(const Scenario& sc, const TrialParams& p) {
  const auto t_start = Clock::now();
  // The plan and the noise depend on the seed only, not the scenario: scenarios of one trial
  // index see the same noise and change the same benchmark (paired comparisons).
  std::mt19937_64 plan_rng(mix(p.seed ^ 0x5ca1ab1eULL));
  Plan pl = sc.plan(p, plan_rng);
  NoiseGen ng{p.noise, std::mt19937_64(mix(p.seed))};
  ng.series_seed = mix(p.seed ^ 0x5e41e5ULL);

  std::map<std::string, int> bench_idx;
  for (int b = 0; b < p.benchmarks; ++b) bench_idx[bench_name(b)] = b;
  // A real regression (or failure) on series (g, b) present at run r.
  auto real = [&](int g, int b, int r) {
    for (const auto& c : pl.changes)
      if (c.gpu == g && c.bench == b && c.kind != "improvement" && c.present(r)) return true;
    return false;
  };
  auto real_on_gpu = [&](int g, int r) {
    for (const auto& c : pl.changes)
      if (c.gpu == g && c.kind != "improvement" && c.present(r)) return true;
    return false;
  };

  // Branch probes draw from streams of their own: main's runs see the same noise in every scenario.
  NoiseGen probe_noise{p.noise, std::mt19937_64(mix(p.seed ^ 0xb7a4c4ULL))};
  probe_noise.series_seed = ng.series_seed;
  std::mt19937_64 probe_rng(mix(p.seed ^ 0x9e0beULL));
  const auto history_bin = [](int h) { return std::min(h, kHistoryBins - 1); };
  // The benchmarks a verdict fails on: correctness failures, confirmed regressions, single-run slowdowns.
  const auto failing = [&](const Verdict& v) {
    std::vector<int> listed;
    const auto add = [&](const std::string& benchmark) {
      const auto it = bench_idx.find(benchmark);
      listed.push_back(it == bench_idx.end() ? -1 : it->second);
    };
    for (const auto& e : v.correctness) add(e.benchmark);
    for (const auto& e : v.regressions) add(e.benchmark);
    for (const auto& e : v.slowdowns) add(e.benchmark);
    return listed;
  };

  TrialResult res;
  for (const auto& c : pl.changes) res.changes.push_back({c});
  TempDir dir;
  StoreOptions so;
  so.db = p.keep_db.empty() ? (dir.path / "fleet.db").string() : p.keep_db;
  Store store(so);
  double ms_before = 0, ms_after = 0;
  int n_before = 0, n_after = 0;
  for (int r = 0; r < p.runs; ++r) {
    for (int g = 0; g < p.gpus; ++g) {  // GPUs interleaved, as a CI fleet posts them
      const std::string id = run_id(g, r);
      char commit[32];
      std::snprintf(commit, sizeof commit, "c%d", r);
      const json run = {{"id", id}, {"commit", commit}, {"branch", "main"}, {"runner", pl.rnr(g, r)},
                        {"started_at", format_iso8601_ms(1767225600000LL + r * 60000LL + g * 1000LL)}};
      std::string body = std::string("{\"run\":").append(run.dump()).append(",\"benchmark\":");
      body.append(make_doc(pl, g, r, p.reps, ng, p.compiled)).append("}");
      const auto t0 = Clock::now();
      store.ingest(body, "fleet-sim");
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (p.prune_keep_runs > 0) store.prune({INT64_MAX, p.prune_keep_runs}, [](const std::string&) {});
      (r < pl.step_run ? ms_before : ms_after) += ms;
      ++(r < pl.step_run ? n_before : n_after);

      const Verdict v = store.queries().verdict(id);
      ++res.runs;
      bool noisier = false, noise_moved = false;
      for (int q = 1; q < p.runs; ++q) {
        noise_moved = noise_moved || pl.nz(g, q) != pl.nz(g, q - 1);
        noisier = noisier || (q <= r && pl.nz(g, q) > pl.nz(g, q - 1));
      }
      if (noisier) {
        ++res.noise_runs;
        res.noise_noted += v.noise.has_value();
        res.noise_noted_machine += v.noise && v.noise->cause == "machine";
      } else if (!noise_moved) {
        res.noise_noted_false += v.noise.has_value();
      }
      const bool fail = v.fail;
      const int bin = history_bin(r);
      ++res.main.runs[bin];
      if (fail && !real_on_gpu(g, r)) ++res.false_fails, ++res.main.false_fails[bin];
      const std::vector<int> listed = failing(v);  // benchmarks the verdict lists as failing
      std::vector<int> suspected;                  // and as suspects
      bool wrong = false;
      for (const int b : listed)
        if (b < 0 || !real(g, b, r)) wrong = true;
      if (fail && wrong) ++res.wrong_fails;
      for (const auto& e : v.suspects) {
        const auto it = bench_idx.find(e.benchmark);
        if (it == bench_idx.end() || !real(g, it->second, r)) ++res.spurious_suspects;
        if (it != bench_idx.end()) suspected.push_back(it->second);
      }
      for (auto& co : res.changes) {
        const auto& c = co.change;
        if (c.gpu != g || r != c.run || c.kind != "regression") continue;
        co.failed_at_once = std::find(listed.begin(), listed.end(), c.bench) != listed.end();
        co.suspect_at_once = co.failed_at_once || std::find(suspected.begin(), suspected.end(), c.bench) != suspected.end();
        ++res.main.slowed[bin];
        res.main.caught[bin] += co.failed_at_once;
      }
      for (auto& co : res.changes) {
        const auto& c = co.change;
        if (!fail || c.gpu != g || r < c.run || co.verdict_delay >= 0 || c.kind == "improvement") continue;
        if (std::find(listed.begin(), listed.end(), c.bench) != listed.end()) co.verdict_delay = r - c.run;
      }
      for (auto& co : res.changes) {
        const auto& c = co.change;
        if (c.gpu != g || co.verdict_delay < 0 || r - c.run <= co.verdict_delay || !c.present(r)) continue;
        ++co.runs_after;
        co.listed_after += std::find(listed.begin(), listed.end(), c.bench) != listed.end();
      }
      if (sc.probe > 0) {
        // A pull request forked from this run's commit, one benchmark slower (or none, for an A/A probe).
        const int pb = pick(probe_rng, p.benchmarks);
        const double keep = pl.lvl(g, r, pb);
        const int keep_spirv = pl.spv(r, pb);
        pl.lvl(g, r, pb) *= sc.probe;
        // A pull request that slows a kernel changed its shader: another SPIR-V (an A/A probe changes nothing).
        if (sc.probe > 1) pl.spv(r, pb) = 1000 + r;
        const json probe = {{"id", id + "-pr"}, {"commit", std::string("p").append(commit)}, {"branch", "pr"},
                            {"merge_base", commit}, {"runner", pl.rnr(g, r)},
                            {"started_at", format_iso8601_ms(1767225600000LL + r * 60000LL + g * 1000LL + 500)}};
        std::string probe_body = std::string("{\"run\":").append(probe.dump()).append(",\"benchmark\":");
        probe_body.append(make_doc(pl, g, r, p.reps, probe_noise, p.compiled)).append("}");
        pl.lvl(g, r, pb) = keep;
        pl.spv(r, pb) = keep_spirv;
        store.ingest(probe_body, "fleet-sim");
        const Verdict pv = store.queries().verdict(id + "-pr");
        const int pbin = history_bin(r + 1);  // the merge base's run is history too
        const bool slowed = sc.probe > 1;
        bool caught = false, other = false;
        for (const int b : failing(pv)) (slowed && b == pb ? caught : other) = true;
        for (ByHistory* h : {&res.probes, base_ns(pb, p.benchmarks) < kShortNs ? &res.probes_short : &res.probes_long}) {
          ++h->runs[pbin];
          h->slowed[pbin] += slowed;
          h->caught[pbin] += caught;
          h->false_fails[pbin] += other && !real_on_gpu(g, r);
        }
      }
    }
  }
  res.ingest_ms_before = n_before ? ms_before / n_before : 0;
  res.ingest_ms_after = n_after ? ms_after / n_after : 0;

  // Every alert, as left at the end (boundaries and causes refined by later runs).
  std::vector<Alert> alerts;
  for (std::int64_t off = 0;;) {
    AlertPage page = store.queries().alerts({{"limit", "500"}, {"offset", std::to_string(off)}});
    for (auto& a : page.alerts) alerts.push_back(std::move(a));
    if (!page.next_offset) break;
    off = *page.next_offset;
  }
  // The runs where a GPU's noise changes (a runner noisier or quieter than before).
  std::vector<std::vector<int>> noise_moves(static_cast<std::size_t>(pl.gpus));
  for (int g = 0; g < pl.gpus; ++g)
    for (int r = 1; r < pl.runs; ++r)
      if (pl.nz(g, r) != pl.nz(g, r - 1)) noise_moves[static_cast<std::size_t>(g)].push_back(r);
  for (const auto& moves : noise_moves) res.noise_series += static_cast<int>(moves.size()) * pl.benchmarks;
  for (const auto& a : alerts) {
    const auto [g, r] = parse_run_id(a.run_id);
    const int raised = parse_run_id(a.raised_by_run).second;
    const auto bit = bench_idx.find(a.benchmark);
    const int b = bit == bench_idx.end() ? -1 : bit->second;
    const std::string& kind = a.kind;
    if (kind == "noise") {
      const auto& moves = noise_moves[static_cast<std::size_t>(g)];
      if (std::any_of(moves.begin(), moves.end(), [&](int m) { return std::abs(m - r) <= 6; })) {
        ++res.noise_found;
        ++res.noise_causes[a.cause];
      } else {
        ++res.false_noise_alerts;
      }
      continue;
    }
    bool on_changed = false;
    for (auto& co : res.changes) {
      const auto& c = co.change;
      if (c.gpu != g || c.bench != b) continue;
      on_changed = true;
      ++co.alerts;
      if (!accepts(c.kind, kind)) co.open_other_kind += a.state == "new";
      if (!accepts(c.kind, kind) || raised < c.run) continue;
      // The earliest raised alert of the right kind counts.
      if (co.found && co.delay <= raised - c.run) continue;
      co.found = true;
      co.delay = raised - c.run;
      co.placed = r == c.run;
      co.cause = a.cause;
      co.evidence_class = a.attribution && a.attribution->findings ? a.attribution->findings->evidence_class.value_or("") : "";
      co.state = a.state;
    }
    if (!on_changed) {
      ++res.false_alerts;
      ++res.false_alert_kinds[kind];
    }
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
  return res;
}

void ByHistory::add(const ByHistory& o) {
  for (int i = 0; i < kHistoryBins; ++i) {
    runs[i] += o.runs[i];
    false_fails[i] += o.false_fails[i];
    slowed[i] += o.slowed[i];
    caught[i] += o.caught[i];
  }
}

namespace {
json by_history_json(const ByHistory& h) {
  return {{"runs", h.runs}, {"false_fails", h.false_fails}, {"slowed", h.slowed}, {"caught", h.caught}};
}
}  // namespace

void Summary::add(const TrialResult& t) {
  main.add(t.main);
  probes.add(t.probes);
  probes_short.add(t.probes_short);
  probes_long.add(t.probes_long);
  ++trials;
  runs += t.runs;
  false_fails += t.false_fails;
  wrong_fails += t.wrong_fails;
  spurious_suspects += t.spurious_suspects;
  false_alerts += t.false_alerts;
  for (const auto& [k, n] : t.false_alert_kinds) false_alert_kinds[k] += n;
  noise_found += t.noise_found;
  noise_runs += t.noise_runs;
  noise_noted += t.noise_noted;
  noise_noted_machine += t.noise_noted_machine;
  noise_noted_false += t.noise_noted_false;
  noise_series += t.noise_series;
  false_noise_alerts += t.false_noise_alerts;
  for (const auto& [k, n] : t.noise_causes) noise_causes[k] += n;
  for (const auto& co : t.changes) {
    ++changes;
    details.push_back({{"trial", trials}, {"gpu", co.change.gpu}, {"benchmark", bench_name(co.change.bench)},
                       {"run", co.change.run}, {"kind", co.change.kind}, {"found", co.found},
                       {"delay", co.delay}, {"placed", co.placed}, {"cause", co.cause},
                       {"evidence_class", co.evidence_class},
                       {"state", co.state}, {"verdict_delay", co.verdict_delay},
                       {"runs_after", co.runs_after}, {"listed_after", co.listed_after},
                       {"suspect_at_once", co.suspect_at_once}, {"until", co.change.until},
                       {"open_other_kind", co.open_other_kind}, {"alerts", co.alerts}});
    open_other_kind += co.open_other_kind;
    if (co.change.kind == "regression") {
      ++slowdowns;
      suspected_at_once += co.suspect_at_once;
      failed_at_once += co.failed_at_once;
    }
    if (co.found) {
      ++found;
      delays.push_back(co.delay);
      placed += co.placed;
      closed += co.state != "new";
      ++causes[co.cause];
      cause_ok += co.cause == expected_cause;
      ++classes[co.evidence_class.empty() ? "siblings" : co.evidence_class];
      class_ok += !expected_class.empty() && co.evidence_class == expected_class;
    }
    runs_after += co.runs_after;
    listed_after += co.listed_after;
    if (co.verdict_delay >= 0) {
      ++verdict_found;
      verdict_delays.push_back(co.verdict_delay);
    }
  }
  ingest_before_sum += t.ingest_ms_before;
  ingest_after_sum += t.ingest_ms_after;
  seconds += t.seconds;
}

namespace {
double mean(const std::vector<int>& v) {
  return v.empty() ? NAN : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
json num(double x) { return std::isnan(x) ? json(nullptr) : json(x); }
}  // namespace

double Summary::mean_delay() const { return mean(delays); }
double Summary::mean_verdict_delay() const { return mean(verdict_delays); }
int Summary::found_within(int runs) const {
  return static_cast<int>(std::count_if(delays.begin(), delays.end(), [&](int d) { return d < runs; }));
}

json Summary::to_json() const {
  const double n = trials ? trials : 1;
  return {{"scenario", scenario},
          {"noise", noise},
          {"trials", trials},
          {"runs", runs},
          {"false_fails", false_fails},
          {"false_fails_per_1000_runs", per_1000(false_fails)},
          {"wrong_series_fails", wrong_fails},
          {"wrong_series_fails_per_1000_runs", per_1000(wrong_fails)},
          {"spurious_suspects_per_1000_runs", per_1000(spurious_suspects)},
          {"false_alerts", false_alerts},
          {"false_alert_kinds", false_alert_kinds},
          {"noise_alerts_found", noise_found},
          {"noise_series", noise_series},
          {"noise_causes", noise_causes},
          {"false_noise_alerts", false_noise_alerts},
          {"noise_verdict_runs", noise_runs},
          {"noise_verdict_noted", noise_noted},
          {"noise_verdict_noted_machine", noise_noted_machine},
          {"noise_verdict_noted_false", noise_noted_false},
          {"changes", changes},
          {"found", found},
          {"delay_runs_mean", num(mean_delay())},
          {"delays", delays},
          {"found_within_6_runs", found_within(6)},
          {"found_within_12_runs", found_within(12)},
          {"found_within_24_runs", found_within(24)},
          {"placed_exactly", placed},
          {"closed_by_server", closed},
          {"open_other_kind_alerts", open_other_kind},
          {"verdict_failed", verdict_found},
          {"verdict_delay_runs_mean", num(mean_verdict_delay())},
          {"verdict_held_pct", num(held_pct())},
          {"slowdowns", slowdowns},
          {"suspected_at_once", suspected_at_once},
          {"failed_at_once", failed_at_once},
          {"by_history", {{"main", {{"runs", main.runs}, {"false_fails", main.false_fails}, {"slowed", main.slowed},
                                    {"caught", main.caught}}},
                          {"probes", by_history_json(probes)}, {"probes_under_30us", by_history_json(probes_short)},
                          {"probes_over_30us", by_history_json(probes_long)}}},
          {"expected_cause", expected_cause.empty() ? json(nullptr) : json(expected_cause)},
          {"causes", causes},
          {"cause_as_expected", expected_cause.empty() ? json(nullptr) : json(cause_ok)},
          {"expected_class", expected_class.empty() ? json(nullptr) : json(expected_class)},
          {"classes", classes},
          {"class_as_expected", expected_class.empty() ? json(nullptr) : json(class_ok)},
          {"ingest_ms_before_step", ingest_before_sum / n},
          {"ingest_ms_from_step", ingest_after_sum / n},
          {"seconds", seconds},
          {"details", details}};
}

}  // namespace shaderwatch::fleet
