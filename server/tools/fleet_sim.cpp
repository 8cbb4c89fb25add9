// shaderwatch-fleet-sim: scores the server's verdicts, alerts and attributions on simulated
// fleets whose truth is known. Not a test (ctest runs a short cut of it, test_fleet_sim.cpp):
// each trial posts every run of 3 GPUs to a fresh in-process Store (SQLite in a temp dir).
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "fleet_scenarios.h"

using nlohmann::json;
namespace fl = shaderwatch::fleet;

namespace {

std::string join_counts(const std::map<std::string, int>& m) {
  std::string s;
  for (const auto& [k, n] : m) s.append(s.empty() ? "" : " ").append(k).append(":").append(std::to_string(n));
  return s.empty() ? "-" : s;
}

std::string fmt(const char* f, double x) {
  if (std::isnan(x)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

void print_table(const std::vector<fl::Summary>& rows) {
  std::printf("%-13s %-7s %3s %5s %6s %6s %6s %4s %7s %6s %15s %7s %6s %5s %10s %6s %6s %9s  %-26s\n",
              "scenario", "noise", "tr", "runs", "ff/1k", "wr/1k", "sus/1k", "fa", "found", "delay", "by6/12/24", "vfail",
              "vdelay", "held", "fail/sus@1", "placed", "closed", "ingestms", "causes [expected: ok]");
  for (const auto& s : rows) {
    const bool any = s.changes > 0;
    auto frac = [&](int n) {
      return any ? std::to_string(n) + "/" + std::to_string(s.changes) : std::string("-");
    };
    std::string causes = join_counts(s.causes);
    if (!s.expected_cause.empty())
      causes.append(" [").append(s.expected_cause).append(": ").append(frac(s.cause_ok)).append("]");
    if (s.found) causes.append("; by ").append(join_counts(s.classes));
    if (!s.expected_class.empty())
      causes.append(" [").append(s.expected_class).append(": ").append(frac(s.class_ok)).append("]");
    const std::string ingest = fmt("%.1f", s.ingest_before_sum / s.trials) + "/" +
                               fmt("%.1f", s.ingest_after_sum / s.trials);
    const std::string early = any ? std::to_string(s.found_within(6)) + "/" + std::to_string(s.found_within(12)) + "/" +
                                        std::to_string(s.found_within(24)) + "/" + std::to_string(s.changes)
                                  : std::string("-");
    std::printf("%-13s %-7s %3d %5d %6.1f %6.1f %6.1f %4d %7s %6s %15s %7s %6s %5s %10s %6s %6s %9s  %s\n",
                s.scenario.c_str(), s.noise.c_str(), s.trials, s.runs, s.per_1000(s.false_fails),
                s.per_1000(s.wrong_fails), s.per_1000(s.spurious_suspects), s.false_alerts, frac(s.found).c_str(),
                fmt("%.1f", s.mean_delay()).c_str(), early.c_str(), frac(s.verdict_found).c_str(),
                fmt("%.1f", s.mean_verdict_delay()).c_str(), fmt("%.0f%%", s.held_pct()).c_str(),
                s.slowdowns ? (std::to_string(s.failed_at_once) + "/" + std::to_string(s.suspected_at_once) + "/" +
                               std::to_string(s.slowdowns)).c_str() : "-",
                frac(s.placed).c_str(), frac(s.closed).c_str(), ingest.c_str(), causes.c_str());
  }
  std::printf(
      "ff/1k: failed verdicts on a GPU's run with no real regression or failure present, per 1000 runs;\n"
      "wr/1k: failed verdicts listing a series with no real regression, per 1000 runs; sus/1k: suspects on\n"
      "such series per 1000 runs; fa: alerts on unchanged series; found: changes with an alert of their kind\n"
      "raised at or after the change (delay: mean runs from the change to that alert); by6/12/24: changes found\n"
      "by the time 6 (12, 24) runs sat on the new level, the change's run the first of them; vfail: changes whose\n"
      "series a failing verdict listed (vdelay: mean runs to the first; held: share of its GPU's later\n"
      "runs whose verdict still listed it, the regression being still there); fail/sus@1: slowdowns whose first\n"
      "run's verdict failed on them / listed them (failing or a suspect) / slowdowns; placed: alert boundary\n"
      "exactly at the change run; closed: found alerts the server itself moved out of state new by the end\n"
      "(nothing is triaged here); ingestms: mean ms per Store::ingest before/from the change run; causes:\n"
      "what the found alerts carry, then by what evidence (the compiled evidence's class, or siblings where it\n"
      "decided nothing), each with [expected: as expected/changes].\n");
}

// Verdicts by history length: per row, main runs' false fails per 1000 and the slowdowns their first run
// failed, then the branch probes' false fails per 1000 and the slowed benchmarks they failed on.
void print_by_history(const std::vector<fl::Summary>& rows) {
  const std::vector<std::pair<int, int>> bins = {{0, 0}, {1, 1}, {2, 2}, {3, 5}, {6, 11}, {12, 17}, {18, fl::kHistoryBins - 1}};
  std::printf("\nBy history (main runs before the run, or up to a probe's merge base; the last bin is 18 or more):\n");
  std::printf("%-13s %-7s %-6s", "scenario", "noise", "");
  for (const auto& [a, b] : bins)
    std::printf(" %13s", (a == b ? std::to_string(a) : std::to_string(a) + "-" + (b == fl::kHistoryBins - 1 ? std::string("") : std::to_string(b))).c_str());
  std::printf("\n");
  const auto line = [&](const fl::Summary& s, const char* what, const fl::ByHistory& h, bool show_caught) {
    int total = 0;
    for (int n : h.runs) total += n;
    if (total == 0) return;
    std::printf("%-13s %-7s %-6s", s.scenario.c_str(), s.noise.c_str(), what);
    for (const auto& [a, b] : bins) {
      int runs = 0, ff = 0, slowed = 0, caught = 0;
      for (int i = a; i <= b; ++i) runs += h.runs[i], ff += h.false_fails[i], slowed += h.slowed[i], caught += h.caught[i];
      std::string cell = runs ? fmt("%.1f", 1000.0 * ff / runs) : "-";
      if (show_caught && slowed) cell += " " + std::to_string(caught) + "/" + std::to_string(slowed);
      std::printf(" %13s", cell.c_str());
    }
    std::printf("\n");
  };
  for (const auto& s : rows) {
    line(s, "main", s.main, true);
    line(s, "probes", s.probes, true);
    if (s.probes.slowed != fl::ByHistory{}.slowed) {  // slowed probes: the same by the slowed benchmark's time
      line(s, "<30us", s.probes_short, true);
      line(s, ">=30us", s.probes_long, true);
    }
  }
  std::printf("Each cell: failed verdicts per 1000 runs with no real change listed, then (where a slowdown came at that\n"
              "history) the slowdowns whose first run failed listing them / the slowdowns; <30us and >=30us: the slowed\n"
              "probes by their benchmark's base time.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string scen_help = "Scenarios (default: all):";
  for (const auto& s : fl::scenarios()) {
    scen_help.append("\n  ").append(s.name).append(": ").append(s.what);
    if (!s.expected_cause.empty()) scen_help.append(" (expected cause: ").append(s.expected_cause);
    if (!s.expected_class.empty()) scen_help.append(", evidence: ").append(s.expected_class);
    if (!s.expected_cause.empty()) scen_help.append(")");
  }
  CLI::App app{std::string(
      "shaderwatch-fleet-sim: simulated fleets of 3 GPUs post runs (GPUs interleaved, one commit per run\n"
      "step, started_at one minute apart) to an in-process Store on a fresh SQLite file per trial; after\n"
      "every post the run's verdict is taken. Each scenario x noise model row scores the verdicts and the\n"
      "alerts against the truth: false fails, changes found, delay, placement, attribution, ingest time\n"
      "(one table row each, columns explained under it; one progress line per trial on stderr).\n"
      "Noise: gauss (1% lognormal run to run, 0.3% between repetitions), heavy (Student-t, 3 dof, 1% sd\n"
      "run to run), twomode (gauss plus a 5% chance per run and series of a 1.5x-3.5x slow mode), reps\n"
      "(1% between repetitions, none run to run), real (calibrated on three H200 runs of one build: Student-t\n"
      "4 dof run to run at the spread those runs show at the benchmark's duration, each series' own\n"
      "noisiness lognormal).\n"
      "Trial t has the same noise in every scenario, and the same changed benchmark in every scenario\n"
      "that changes one (paired comparisons).\n\n")
                   .append(scen_help)};
  fl::TrialParams base;
  int trials = 3;
  std::vector<std::string> noises{"gauss", "heavy", "twomode", "reps", "real"};
  std::vector<std::string> all_scenarios;
  for (const auto& s : fl::scenarios()) all_scenarios.push_back(s.name);
  std::vector<std::string> scen_names = all_scenarios;
  std::uint64_t seed = 1;
  std::string json_path;
  const std::vector<std::string> noise_names{"gauss", "heavy", "twomode", "reps", "real"};
  app.add_option("--trials", trials, "Trials per scenario x noise model")
      ->check(CLI::Range(1, 100000))->capture_default_str();
  // The change comes at run R/2 (drift from R/3) and the detector needs 18 points of history.
  app.add_option("--runs", base.runs, "Runs per GPU (the change comes at run R/2)")
      ->check(CLI::Range(20, 100000))->capture_default_str();
  app.add_option("--benchmarks", base.benchmarks, "Benchmarks per run (base times log-spaced 10 us to 5 ms)")
      ->check(CLI::Range(3, 100000))->capture_default_str();
  app.add_option("--reps", base.reps, "Repetitions per benchmark per run")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_option("--noise", noises, "Noise models, comma separated")
      ->delimiter(',')->check(CLI::IsMember(noise_names))->capture_default_str();
  app.add_option("--scenarios", scen_names, "Scenarios, comma separated (listed above)")
      ->delimiter(',')->check(CLI::IsMember(all_scenarios))->capture_default_str();
  app.add_option("--seed", seed,
                 "Seed of the first trial (trial t with noise model n, 0 gauss 1 heavy 2 twomode 3 reps,\n"
                 "uses seed + 1000 n + t; 4 real)")
      ->capture_default_str();
  app.add_option("--json", json_path, "Also write the rows (and every delay) as JSON to this file");
  app.add_flag("!--no-compiled", base.compiled,
               "Runs record no SPIR-V labels and no compiled section (the attribution by siblings alone)");
  app.add_option("--prune-keep-runs", base.prune_keep_runs,
                 "After each post, prune every run's raw repetitions but each GPU's newest N (0: never): the verdicts\n"
                 "and alerts of a pruned database, to compare with an unpruned run of the same seeds");
  std::string keep_dir;
  app.add_option("--keep-db", keep_dir,
                 "Keep each trial's SQLite file in this existing directory, as <scenario>-<noise>-<seed>.db\n"
                 "(e.g. for shaderwatch-server serve --db); an existing file of that name is replaced")
      ->check(CLI::ExistingDirectory);
  CLI11_PARSE(app, argc, argv);

  std::vector<fl::Summary> rows;
  const int total = static_cast<int>(scen_names.size() * noises.size()) * trials;
  int done = 0;
  for (const auto& sn : scen_names) {
    const fl::Scenario& sc = *fl::find_scenario(sn);
    for (std::size_t ni = 0; ni < noises.size(); ++ni) {
      fl::Summary sum;
      sum.scenario = sc.name;
      sum.noise = noises[ni];
      sum.expected_cause = sc.expected_cause;
      sum.expected_class = sc.expected_class;
      for (int t = 0; t < trials; ++t) {
        fl::TrialParams p = base;
        p.noise = *fl::parse_noise(noises[ni]);
        // By the model, not its place in --noise, so a row is the same whatever else is asked for.
        p.seed = seed + 1000 * static_cast<std::uint64_t>(p.noise) + static_cast<std::uint64_t>(t);
        if (!keep_dir.empty()) {
          const std::string file = sc.name + "-" + noises[ni] + "-" + std::to_string(p.seed) + ".db";
          p.keep_db = (std::filesystem::path(keep_dir) / file).string();
          for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p.keep_db + suffix);
        }
        const fl::TrialResult r = fl::run_trial(sc, p);
        sum.add(r);
        int found = 0;
        for (const auto& c : r.changes) found += c.found;
        std::fprintf(stderr,
                     "[%d/%d] %s %s trial %d: %d runs, %d false fails, %d false alerts, found %d/%zu, %.1f s\n",
                     ++done, total, sc.name.c_str(), noises[ni].c_str(), t + 1, r.runs, r.false_fails,
                     r.false_alerts, found, r.changes.size(), r.seconds);
      }
      rows.push_back(std::move(sum));
    }
  }
  std::printf("%d GPUs x %d runs x %d benchmarks x %d reps, %d trials, seed %llu, %s\n", base.gpus, base.runs,
              base.benchmarks, base.reps, trials, static_cast<unsigned long long>(seed),
              base.compiled ? "runs record what was compiled" : "runs record nothing compiled (--no-compiled)");
  print_table(rows);
  print_by_history(rows);
  if (!json_path.empty()) {
    json out = {{"gpus", base.gpus}, {"runs", base.runs}, {"benchmarks", base.benchmarks}, {"reps", base.reps},
                {"compiled", base.compiled},
                {"trials", trials}, {"seed", seed}, {"rows", json::array()}};
    for (const auto& s : rows) out["rows"].push_back(s.to_json());
    std::ofstream f(json_path);
    f << out.dump(2) << "\n";
    if (!f) {
      std::cerr << "error: cannot write " << json_path << "\n";
      return 1;
    }
  }
  return 0;
}
