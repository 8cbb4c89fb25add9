#!/usr/bin/env python3
"""Replays issue 51's cases through a shaderwatch-server's gate on real runs of one build, and prints each verdict.

Three runs of one build (the A/A), then a commit that makes lum/grid_stride_vec4 read its image three times
(47% slower at 1920x1080 hot, 22% cold, 2.6x at 4K, 2.9x at 8K, as measured on an H200), the same commit on a
branch, the revert, and then a 3.6x slowdown of the 8K blur; and, on a second GPU record, the slowdown staying for
ten runs (the next commits and reruns). Each run is a copy of one of the three real documents, so only the slowed rows
(and their kernels' SPIR-V) differ.

    server/tools/gate_replay.py --server build/server/shaderwatch-server [--data DIR]

It starts the server on a free loopback port with a fresh database in a temporary directory, posts the runs with
the server's `post` subcommand, and prints one line per run: the verdict, what failed, the suspects among the
slowed benchmarks, and the coverage line.
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

SLOWED = {"lum/grid_stride_vec4/1920x1080/hot": 1.47, "lum/grid_stride_vec4/1920x1080/cold": 1.22,
          "lum/grid_stride_vec4/3840x2160/hot": 2.6, "lum/grid_stride_vec4/3840x2160/cold": 2.6,
          "lum/grid_stride_vec4/7680x4320/hot": 2.9, "lum/grid_stride_vec4/7680x4320/cold": 2.9}
BLUR = {"postfx/blur_shared_r16/7680x4320/cold": 3.6}


def kernel_of(run_name):
    return "/".join(run_name.split("/")[:2])


def slowed(doc, factors):
    """The runs' slowed rows times their factor, and the slowed kernels recompiled (another SPIR-V in every row's
    label and in sw_compiled), as the commit that slows a kernel changes its shader: the gate holds a slowdown of
    a kernel that ran as before as a suspect (a slow mode)."""
    doc = copy.deepcopy(doc)
    kernels = {kernel_of(name) for name in factors}
    for row in doc["benchmarks"]:
        name = row.get("run_name", "")
        f = factors.get(name)
        if f and row.get("aggregate_name") != "cv":
            row["real_time"] *= f
            row["cpu_time"] *= f
        if kernel_of(name) in kernels and "label" in row:
            row["label"] = re.sub(r"spirv:\S+", "spirv:5107ed0000c0ffee", row["label"])
    for k in kernels:
        if k in doc.get("sw_compiled", {}):
            doc["sw_compiled"][k]["spirv"] = "5107ed0000c0ffee"
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True, help="the shaderwatch-server binary")
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
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "replay.db")
        token = subprocess.run([args.server, "token", "create", "replay", "--db", db], check=True,
                               capture_output=True, text=True).stdout.strip()
        serve = subprocess.Popen([args.server, "serve", "--db", db, "--port", "0", "--bind", "127.0.0.1"],
                                 stdout=subprocess.PIPE, text=True)
        try:
            m = re.search(r"listening on (http://\S+)", serve.stdout.readline())
            if not m:
                sys.exit("error: the server did not say where it listens")
            url = m.group(1)
            minute = [0]

            def post(doc, run_id, commit, host="h200-box", branch=None, merge_base=None):
                path = os.path.join(tmp, run_id + ".json")
                with open(path, "w") as f:
                    json.dump(doc, f)
                minute[0] += 5
                cmd = [args.server, "post", "--url", url, "--token", token, path, "--run-id", run_id, "--commit", commit,
                       "--runner", host, "--started-at", f"2026-11-27T{10 + minute[0] // 60:02d}:{minute[0] % 60:02d}:00Z"]
                if branch:
                    cmd += ["--branch", branch, "--merge-base", merge_base]
                subprocess.run(cmd, check=True, capture_output=True)
                with urllib.request.urlopen(f"{url}/api/v1/runs/{run_id}/verdict") as r:
                    v = json.load(r)
                fails = [f"{s['benchmark']} +{s['delta_pct']:.0f}% (floor {s['floor_pct']:.1f}%)" for s in v["slowdowns"]]
                fails += [f"regression #{a['id']} {a['benchmark']}" for a in v["regressions"]]
                sus = [s["benchmark"] for s in v["suspects"] if s["benchmark"] in SLOWED or s["benchmark"] in BLUR]
                print(f"{run_id:10s} {v['verdict']:4s} fails: {'; '.join(fails) or '-'}"
                      f"{'  suspects: ' + ', '.join(sus) if sus else ''}\n           {v['coverage']['line']}")

            r1, r2, r3 = runs
            print("== one H200: the A/A, the slowing commit (main and a branch), its revert, a 3.6x blur")
            post(r1, "r1", "c1")
            post(r2, "r2", "c2")
            post(r3, "r3", "c3")
            post(slowed(r1, SLOWED), "pr", "p1", branch="topic", merge_base="c3")
            post(slowed(r1, SLOWED), "slow", "c4")
            post(r3, "revert", "c5")
            post(slowed(r1, BLUR), "blur", "c6")
            print("== the slowing commit stays: the next commits and reruns carry it")
            for i, doc in enumerate([r1, r2, r3]):
                d = copy.deepcopy(doc)
                d["context"]["sw_device_uuid"] = "replay-gpu-2"
                d["context"]["sw_device_name"] = "NVIDIA H200 (second record)"
                runs[i] = d
            post(runs[0], "s1", "d1", "h200-b")
            post(runs[1], "s2", "d2", "h200-b")
            post(runs[2], "s3", "d3", "h200-b")
            for k in range(10):
                post(slowed(runs[k % 3], SLOWED), f"s{4 + k}", f"d{4 + k}", "h200-b")
        finally:
            serve.terminate()
            serve.wait()


if __name__ == "__main__":
    main()
