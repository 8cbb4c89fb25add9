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

from replay_server import DEFAULT_DATA, ReplayServer, load_real_runs, slowed

SLOWED = {"lum/grid_stride_vec4/1920x1080/hot": 1.47, "lum/grid_stride_vec4/1920x1080/cold": 1.22,
          "lum/grid_stride_vec4/3840x2160/hot": 2.6, "lum/grid_stride_vec4/3840x2160/cold": 2.6,
          "lum/grid_stride_vec4/7680x4320/hot": 2.9, "lum/grid_stride_vec4/7680x4320/cold": 2.9}
BLUR = {"postfx/blur_shared_r16/7680x4320/cold": 3.6}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True, help="the shaderwatch-server binary")
    ap.add_argument("--data", default=DEFAULT_DATA,
                    help="folder holding h200-86de8e8-r1/-r2/-r3.json.gz")
    args = ap.parse_args()
    runs = load_real_runs(args.data)
    with ReplayServer(args.server) as server:
        minute = [0]

        def post(doc, run_id, commit, host="h200-box", branch=None, merge_base=None):
            minute[0] += 5
            v = server.post(doc, run_id, commit, f"2026-11-27T{10 + minute[0] // 60:02d}:{minute[0] % 60:02d}:00Z", host,
                            branch, merge_base)
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


if __name__ == "__main__":
    main()
