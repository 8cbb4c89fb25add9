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
import copy
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

SHORT_US = 30  # the targets' split: +25% under 30 us, +10% over


def kernel_of(run_name):
    return "/".join(run_name.split("/")[:2])


def slowed(doc, name, factor):
    doc = copy.deepcopy(doc)
    k = kernel_of(name)
    for row in doc["benchmarks"]:
        rn = row.get("run_name", "")
        if rn == name and row.get("aggregate_name") != "cv":
            row["real_time"] *= factor
            row["cpu_time"] *= factor
        if kernel_of(rn) == k and "label" in row:
            row["label"] = re.sub(r"spirv:\S+", "spirv:5107ed0000c0ffee", row["label"])
    if k in doc.get("sw_compiled", {}):
        doc["sw_compiled"][k]["spirv"] = "5107ed0000c0ffee"
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True, help="the shaderwatch-server binary")
    ap.add_argument("--factor", type=float, default=1.10, help="the slowdown (1.10: +10%%)")
    ap.add_argument("--history", type=int, choices=(2, 3), default=3, help="main runs before the slowed one")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "../../tests/server/fixtures/real"),
                    help="folder holding h200-86de8e8-r1/-r2/-r3.json.gz")
    args = ap.parse_args()
    runs = []
    for i in (1, 2, 3):
        path = os.path.join(args.data, f"h200-86de8e8-r{i}.json.gz")
        try:
            with gzip.open(path) as f:
                runs.append(json.load(f))
        except OSError as e:
            sys.exit(f"error: cannot read {path}: {e}")
    medians = {b["run_name"]: b["real_time"] for b in runs[0]["benchmarks"] if b.get("aggregate_name") == "median"}
    unit = next(b.get("time_unit") for b in runs[0]["benchmarks"] if b.get("aggregate_name") == "median")
    if unit != "us":
        sys.exit(f"error: expected times in us, the runs have {unit}")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "power.db")
        token = subprocess.run([args.server, "token", "create", "power", "--db", db], check=True,
                               capture_output=True, text=True).stdout.strip()
        serve = subprocess.Popen([args.server, "serve", "--db", db, "--port", "0", "--bind", "127.0.0.1"],
                                 stdout=subprocess.PIPE, text=True)
        try:
            m = re.search(r"listening on (http://\S+)", serve.stdout.readline())
            if not m:
                sys.exit("error: the server did not say where it listens")
            url = m.group(1)

            def post(doc, run_id, commit, minute, branch=None, merge_base=None):
                path = os.path.join(tmp, "doc.json")
                with open(path, "w") as f:
                    json.dump(doc, f)
                cmd = [args.server, "post", "--url", url, "--token", token, path, "--run-id", run_id, "--commit", commit,
                       "--runner", "h200-box", "--started-at", f"2026-11-27T10:{minute:02d}:00Z"]
                if branch:
                    cmd += ["--branch", branch, "--merge-base", merge_base]
                subprocess.run(cmd, check=True, capture_output=True)
                with urllib.request.urlopen(f"{url}/api/v1/runs/{run_id}/verdict") as r:
                    return json.load(r)

            for i in range(args.history):
                post(runs[i], f"r{i + 1}", f"c{i + 1}", 5 * i)
            source = runs[0] if args.history == 3 else runs[2]  # a run not yet in main's history
            counts = {"over": [0, 0, 0], "under": [0, 0, 0]}  # failed, suspect, slowed
            for i, name in enumerate(sorted(medians)):
                v = post(slowed(source, name, args.factor), f"p{i}", f"p{i}", 30, f"topic-{i}", f"c{args.history}")
                c = counts["under" if medians[name] < SHORT_US else "over"]
                c[2] += 1
                if any(s["benchmark"] == name for s in v["slowdowns"]):
                    c[0] += 1
                elif any(s["benchmark"] == name for s in v["suspects"]):
                    c[1] += 1
        finally:
            serve.terminate()
            serve.wait()
    for side in ("over", "under"):
        failed, suspect, n = counts[side]
        print(f"x{args.factor:g}, the series' run {args.history + 1}, {side} {SHORT_US} us: failed {failed} of {n}"
              f" ({100 * failed / max(n, 1):.0f}%), suspects {suspect}")


if __name__ == "__main__":
    main()
