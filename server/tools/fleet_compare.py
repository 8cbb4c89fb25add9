#!/usr/bin/env python3
"""Compares fleet simulations before and after a change: shaderwatch-fleet-sim --json files, summed by scenario
and noise model over every file given on each side (trials of several seeds or processes add up).

    server/tools/fleet_compare.py --before B1.json [B2.json ...] --after A1.json [A2.json ...]

Prints three tables: the single-run gate's false failures per 1000 runs with no change (main runs of aa and
branch_aa, and branch_aa's probes); the share of slowed branch probes (+10%, +25%, 2x, 3.6x) whose own run failed,
by the history their benchmark had and by its duration (under or over 30 us); and every scenario's scores
(failed verdicts, changes found and within 6 runs, placed, listed by a failing verdict, cause as expected, alerts
on unchanged series), before -> after where they differ.
"""
import argparse
import json
import sys
from collections import defaultdict

BINS = [(0, 0), (1, 1), (2, 2), (3, 5), (6, 11), (12, 17), (18, 20)]
COUNTS = ["runs", "false_fails", "found", "found_within_6_runs", "placed_exactly", "verdict_failed", "changes_total",
          "cause_as_expected", "false_alerts", "wrong_series_fails"]


def load(paths):
    rows = {}
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"error: cannot read {path}: {e}")
        for r in doc["rows"]:
            key = (r["scenario"], r["noise"])
            acc = rows.setdefault(key, {"hist": defaultdict(lambda: defaultdict(lambda: [0] * 21)),
                                        **{c: 0 for c in COUNTS}})
            acc["changes_total"] += len(r.get("details", [])) if r.get("details") else 0
            for c in COUNTS:
                if c != "changes_total":
                    acc[c] += r.get(c) or 0
            for part, h in r["by_history"].items():
                for field, values in h.items():
                    for i, v in enumerate(values):
                        acc["hist"][part][field][i] += v
    return rows


def binned(h, field):
    return [sum(h[field][a:b + 1]) for a, b in BINS]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", nargs="+", required=True)
    ap.add_argument("--after", nargs="+", required=True)
    args = ap.parse_args()
    before, after = load(args.before), load(args.after)
    noises = ["gauss", "heavy", "twomode", "reps", "real"]

    print("Failed verdicts per 1000 runs with no change (aa and branch_aa main runs; branch_aa probes), before -> after")
    for n in noises:
        cells = []
        for side in (before, after):
            runs = ff = pr = pff = 0
            for sc in ("aa", "branch_aa"):
                r = side.get((sc, n))
                if not r:
                    continue
                runs += r["runs"]
                ff += r["false_fails"]
                if sc == "branch_aa":
                    pr += sum(r["hist"]["probes"]["runs"])
                    pff += sum(r["hist"]["probes"]["false_fails"])
            cells.append((runs, ff, pr, pff))
        fmt = lambda c: f"{1000 * c[1] / c[0]:.2f} ({c[1]}/{c[0]}), probes {1000 * c[3] / c[2]:.2f} ({c[3]}/{c[2]})" \
            if c[0] and c[2] else "-"
        print(f"  {n:8s} {fmt(cells[0])}  ->  {fmt(cells[1])}")

    print("\nSlowed probes whose own run failed, by history (runs before the merge base) "
          + " ".join(f"{a}-{b}" if a != b else str(a) for a, b in BINS))
    for sc in ("branch_10pct", "branch_25pct", "branch_2x", "branch_3.6x"):
        for n in noises:
            for part, label in (("probes_under_30us", "<30us"), ("probes_over_30us", ">=30us")):
                line = []
                for side in (before, after):
                    r = side.get((sc, n))
                    if not r:
                        line.append("-")
                        continue
                    h = r["hist"][part]
                    line.append(" ".join(f"{c}/{s}" if s else "-" for c, s in zip(binned(h, "caught"), binned(h, "slowed"))))
                print(f"  {sc:12s} {n:8s} {label:6s} {line[0]}  ->  {line[1]}")

    print("\nEvery scenario: ff (failed verdicts with no change present), found, by6, placed, vfail, cause, fa;"
          " before -> after where they differ")
    for key in sorted(set(before) | set(after)):
        b, a = before.get(key), after.get(key)
        if not b or not a:
            continue
        parts = []
        for c in ("runs", "false_fails", "found", "found_within_6_runs", "placed_exactly", "verdict_failed",
                  "cause_as_expected", "false_alerts", "wrong_series_fails"):
            parts.append(f"{c}={b[c]}" if b[c] == a[c] else f"{c}={b[c]}->{a[c]}")
        print(f"  {key[0]:17s} {key[1]:8s} " + " ".join(parts))


if __name__ == "__main__":
    main()
