// Fleet simulation: synthetic GPUs post runs to an in-process Store, with a known truth (what
// changed, where, why), so the server's verdicts, alerts and attributions can be scored.
// Used by shaderwatch-fleet-sim (server/tools/fleet_sim.cpp) and tests/server/fleet_sim_test.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace shaderwatch::fleet {

// Multiplicative noise per (series, run) and per repetition.
//   gauss:   lognormal, 1% run to run, 0.3% between repetitions.
//   heavy:   Student-t (3 dof) run to run, scaled to a 1% standard deviation; 0.3% repetitions.
//   twomode: gauss, and with probability 5% a series' whole run is 1.5x-3.5x slower (all its
//            repetitions together), the slow mode real GPUs show.
//   reps:    1% between repetitions and none run to run: every repetition an independent draw (a
//            model with no run-level component, under which a 3% step is far easier to see).
//   real:    calibrated on three H200 runs of one build (../shared/data/h200-86de8e8-r1..r3): run to run a
//            Student-t (4 dof) at the spread those runs show at the benchmark's duration (0.30% at 10 us,
//            0.08% at 0.2-0.5 ms, 0.02% at 3 ms, as the median absolute change), times a noisiness of each
//            series' own (lognormal, sd 0.5 in logs); repetitions at the same spread. Fitted to the share of
//            changes beyond 2-8 of that spread (real: 14/7.2/3.4/1.2/0.7/0.3% beyond 2/3/4/5/6/8).
enum class Noise { Gauss, Heavy, Twomode, Reps, Real };
const char* to_string(Noise n);
std::optional<Noise> parse_noise(std::string_view s);

struct TrialParams {
  int gpus = 3;
  int runs = 60;        // runs per GPU
  int benchmarks = 24;  // per run
  int reps = 3;         // repetitions per benchmark
  Noise noise = Noise::Gauss;
  std::uint64_t seed = 1;
  std::string keep_db;  // when set, the trial's SQLite file goes here and is kept (for inspection)
  // Runs record what ran, as shaderwatch-bench does: each row's label names its kernel's SPIR-V and the
  // compiled section gives each kernel's statistics. Off: neither (the statistical attribution alone).
  bool compiled = true;
  // > 0: after each post, every run but each GPU's newest `prune_keep_runs` loses its raw repetitions
  // (storage/prune.h), so that a pruned database's verdicts and alerts can be held against an unpruned one's.
  std::size_t prune_keep_runs = 0;
};

// A real change the server should report: series (gpu, bench) from run `run` on.
struct Change {
  int gpu = 0, bench = 0, run = 0;
  std::string kind;  // "regression", "improvement" or "correctness"
  int until = -1;    // the run that undoes it (a revert); -1: it stays
  bool present(int r) const { return r >= run && (until < 0 || r < until); }
};

// The truth of one trial: per (gpu, run, bench) the level (x the base time) and whether the
// benchmark fails; per (gpu, run) the driver, the runner and its noise (x the noise model's spread:
// a runner with 4x the run-to-run noise is 4). The commit is always c<run>.
struct Plan {
  int gpus = 0, runs = 0, benchmarks = 0;
  int step_run = 0;  // ingest time is split here (before / from)
  std::vector<double> level;
  std::vector<char> fails;
  std::vector<std::string> driver, runner;
  std::vector<double> noise;
  std::vector<Change> changes;
  // What ran: per (run, bench) the kernel's SPIR-V version (a commit changes it, on every GPU), and per
  // (gpu, run, bench) the version of the driver's compilation of it (its statistics).
  std::vector<int> spirv, compiled;

  Plan(const TrialParams& p);
  double& lvl(int g, int r, int b) { return level[idx(g, r, b)]; }
  char& fail(int g, int r, int b) { return fails[idx(g, r, b)]; }
  std::string& drv(int g, int r) { return driver[static_cast<std::size_t>(g * runs + r)]; }
  std::string& rnr(int g, int r) { return runner[static_cast<std::size_t>(g * runs + r)]; }
  double& nz(int g, int r) { return noise[static_cast<std::size_t>(g * runs + r)]; }
  int& spv(int r, int b) { return spirv[static_cast<std::size_t>(r * benchmarks + b)]; }
  int& cmp(int g, int r, int b) { return compiled[idx(g, r, b)]; }

 private:
  std::size_t idx(int g, int r, int b) const {
    return static_cast<std::size_t>((g * runs + r) * benchmarks + b);
  }
};

struct Scenario {
  std::string name;
  std::string expected_cause;  // the attribution a correct server gives ("" = none expected)
  std::string expected_class;  // and the compiled evidence's class (detect::EvidenceClass's words; "" = none)
  std::string what;            // one line for --help
  Plan (*plan)(const TrialParams&, std::mt19937_64& rng);
  // Branch probes: after every main run of every GPU, a run on branch "pr" forked from it (its merge base),
  // with one benchmark (a new one each time) this many times slower; 1 is an A/A probe, 0 none. Probes have
  // noise of their own, so main's runs see the same noise as in every other scenario.
  double probe = 0;
};

// Verdicts by the history their benchmarks had (main runs before the run, or at the merge base): index h
// is h runs of history, the last index h or more.
inline constexpr int kHistoryBins = 21;
struct ByHistory {
  std::vector<int> runs = std::vector<int>(kHistoryBins), false_fails = std::vector<int>(kHistoryBins),
                   slowed = std::vector<int>(kHistoryBins), caught = std::vector<int>(kHistoryBins);
  void add(const ByHistory& o);
};
const std::vector<Scenario>& scenarios();
const Scenario* find_scenario(std::string_view name);

std::string kernel_name(int k);       // lum/var<k>
std::string bench_name(int k);        // its benchmark: lum/var<k>/1920x1080/cold
double base_ns(int k, int n);         // log-spaced from 10 us to 5 ms
inline constexpr double kShortNs = 30e3;  // the targets' split: +25% under 30 us, +10% over
std::string gpu_name(int g);          // "Fleet GPU <g>"

// What the server did about one Change.
struct ChangeOutcome {
  Change change;
  bool found = false;     // an alert of the change's kind on its series, raised at or after the change
  int delay = -1;         // runs from the change to the run that raised that alert
  bool placed = false;    // the alert's boundary (run_id) is exactly the change run
  std::string cause;      // the cause the alert carries (after the server's later refinements)
  std::string evidence_class;  // what the compiled evidence decided ("" where the siblings did)
  std::string state;      // its state at the end (the sim triages nothing: any change is the server's)
  int verdict_delay = -1; // runs from the change to the first failing verdict listing this series
  // Runs of its GPU after that first failing verdict, and how many of their verdicts still listed it
  // (a regression still there should keep failing until someone triages it).
  int runs_after = 0, listed_after = 0;
  bool suspect_at_once = false;  // a slowdown its first run's verdict listed (as a suspect or a failure)
  bool failed_at_once = false;   // a slowdown whose first run's verdict failed, listing it
  int open_other_kind = 0;       // alerts of another kind on its series left in state new (a revert's improvement)
  int alerts = 0;                // alerts of any kind but noise on its series (a drift should raise one)
};

struct TrialResult {
  int runs = 0;               // verdicts taken (one per posted run)
  int false_fails = 0;        // fail verdicts on a GPU's run with no real regression present
  int wrong_fails = 0;        // fail verdicts listing a series that has no real regression
  int spurious_suspects = 0;  // suspect entries on series with no real regression
  int false_alerts = 0;       // alerts (any kind but noise) on series without a change
  std::map<std::string, int> false_alert_kinds;
  // Noise alerts: on a series of a GPU whose noise changed (within 6 runs of the change), by the cause they carry;
  // and the series that could have had one. Any other noise alert is false.
  int noise_found = 0, noise_series = 0, false_noise_alerts = 0;
  std::map<std::string, int> noise_causes;
  // Verdicts naming a noisier runner (Verdict::noise): of runs after their GPU's noise rose, those that do and
  // those that blame the machine; of runs on a GPU whose noise never changed, those that do (false).
  int noise_runs = 0, noise_noted = 0, noise_noted_machine = 0, noise_noted_false = 0;
  std::vector<ChangeOutcome> changes;
  double ingest_ms_before = 0, ingest_ms_after = 0;  // mean wall ms of Store::ingest
  double seconds = 0;
  // Main runs (false fails; slowed: a real slowdown's first run, caught: its verdict failed listing it) and
  // branch probes (false fails: a fail listing anything but the slowed benchmark; caught: listing it), and the
  // probes again by the slowed benchmark's base time: under 30 us (short) or not (long).
  ByHistory main, probes, probes_short, probes_long;
};

// Posts the whole trial to a fresh Store in a temp dir (removed afterwards) and scores it.
TrialResult run_trial(const Scenario& sc, const TrialParams& p);

// Sums of trials of one scenario x noise model.
struct Summary {
  std::string scenario, noise, expected_cause, expected_class;
  int trials = 0, runs = 0, false_fails = 0, wrong_fails = 0, spurious_suspects = 0, false_alerts = 0;
  int changes = 0, found = 0, placed = 0, verdict_found = 0, cause_ok = 0;
  int closed = 0;  // found alerts no longer in state new at the end (closed by the server)
  int open_other_kind = 0;  // alerts of another kind on changed series left in state new
  int runs_after = 0, listed_after = 0;
  int slowdowns = 0, suspected_at_once = 0;  // slowdowns (not correctness), and those listed on their first run
  int failed_at_once = 0;                     // slowdowns whose first run's verdict failed on them
  ByHistory main, probes, probes_short, probes_long;
  std::vector<int> delays, verdict_delays;
  std::map<std::string, int> causes, false_alert_kinds;
  std::map<std::string, int> classes;  // found alerts by evidence class ("siblings" where none decided)
  int class_ok = 0;
  int noise_found = 0, noise_series = 0, false_noise_alerts = 0;
  std::map<std::string, int> noise_causes;
  int noise_runs = 0, noise_noted = 0, noise_noted_machine = 0, noise_noted_false = 0;
  nlohmann::json details = nlohmann::json::array();  // one object per change of every trial
  double ingest_before_sum = 0, ingest_after_sum = 0;
  double seconds = 0;

  void add(const TrialResult& t);
  double per_1000(int n) const { return runs ? 1000.0 * n / runs : 0; }
  double mean_delay() const;
  double mean_verdict_delay() const;
  // Changes found by the time `runs` runs sat on the new level (the change run is the first of them).
  int found_within(int runs) const;
  double held_pct() const { return runs_after ? 100.0 * listed_after / runs_after : NAN; }
  nlohmann::json to_json() const;
};

}  // namespace shaderwatch::fleet
