#!/usr/bin/env python3
"""Issue 51's power targets on real runs: which single-benchmark slowdowns the gate fails on the run that brings them.

Posts the first two (or three) of three real H200 runs of one build to a fresh server as main, then, for every
benchmark in turn, a branch run forked from main's last run: a copy of a real run with that one benchmark `factor`
times slower and its kernel recompiled (another SPIR-V, as the commit that slows a kernel changes its shader).
Prints how many of those slowdowns failed their run (and how many were suspects), over and under 30 us.

    server/tools/gate_power_real.py --server build/server/shaderwatch-server --factor 1.10 --history 3

--history 2: the slowed run is each series' third run (judged against main at its second); 3: its fourth.
About 0.4 s a benchmark (340 of them).
"""
import argparse
import sys

from replay_server import DEFAULT_DATA, ReplayServer, load_real_runs, slowed

SHORT_US = 30  # the targets' split: +25% under 30 us, +10% over


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True, help="the shaderwatch-server binary")
    ap.add_argument("--factor", type=float, default=1.10, help="the slowdown (1.10: +10%%)")
    ap.add_argument("--history", type=int, choices=(2, 3), default=3, help="main runs before the slowed one")
    ap.add_argument("--data", default=DEFAULT_DATA,
                    help="folder holding h200-86de8e8-r1/-r2/-r3.json.gz")
    args = ap.parse_args()
    runs = load_real_runs(args.data)
    medians = {b["run_name"]: b["real_time"] for b in runs[0]["benchmarks"] if b.get("aggregate_name") == "median"}
    unit = next(b.get("time_unit") for b in runs[0]["benchmarks"] if b.get("aggregate_name") == "median")
    if unit != "us":
        sys.exit(f"error: expected times in us, the runs have {unit}")
    counts = {"over": [0, 0, 0], "under": [0, 0, 0]}  # failed, suspect, slowed
    with ReplayServer(args.server) as server:
        for i in range(args.history):
            server.post(runs[i], f"r{i + 1}", f"c{i + 1}", f"2026-11-27T10:{5 * i:02d}:00Z")
        source = runs[0] if args.history == 3 else runs[2]  # a run not yet in main's history
        for i, name in enumerate(sorted(medians)):
            v = server.post(slowed(source, {name: args.factor}), f"p{i}", f"p{i}", "2026-11-27T10:30:00Z",
                            branch=f"topic-{i}", merge_base=f"c{args.history}")
            c = counts["under" if medians[name] < SHORT_US else "over"]
            c[2] += 1
            if any(s["benchmark"] == name for s in v["slowdowns"]):
                c[0] += 1
            elif any(s["benchmark"] == name for s in v["suspects"]):
                c[1] += 1
    for side in ("over", "under"):
        failed, suspect, n = counts[side]
        print(f"x{args.factor:g}, the series' run {args.history + 1}, {side} {SHORT_US} us: failed {failed} of {n}"
              f" ({100 * failed / max(n, 1):.0f}%), suspects {suspect}")


if __name__ == "__main__":
    main()
