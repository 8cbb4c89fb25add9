"""What the replay tools share (gate_replay.py, gate_power_real.py): the real H200 runs of one build, a kernel slowed as
the commit that slows it would leave it, and a fresh shaderwatch-server on a loopback port to post runs to."""
import copy
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

DEFAULT_DATA = os.path.join(os.path.dirname(__file__), "../../tests/server/fixtures/real")
RECOMPILED_SPIRV = "5107ed0000c0ffee"


def load_real_runs(data):
    """The three real H200 runs of 86de8e8 (h200-86de8e8-r1/-r2/-r3.json.gz in `data`); exits naming a missing one."""
    runs = []
    for i in (1, 2, 3):
        path = os.path.join(data, f"h200-86de8e8-r{i}.json.gz")
        try:
            with gzip.open(path) as f:
                runs.append(json.load(f))
        except OSError as e:
            sys.exit(f"error: cannot read {path}: {e}")
    return runs


def kernel_of(run_name):
    return "/".join(run_name.split("/")[:2])


def slowed(doc, factors):
    """A copy of `doc` with each row named in `factors` that many times slower and the slowed kernels recompiled (another
    SPIR-V in every row's label and in sw_compiled), as the commit that slows a kernel changes its shader: the gate
    holds a slowdown of a kernel that ran as before as a suspect (a slow mode)."""
    doc = copy.deepcopy(doc)
    kernels = {kernel_of(name) for name in factors}
    for row in doc["benchmarks"]:
        name = row.get("run_name", "")
        f = factors.get(name)
        if f and row.get("aggregate_name") != "cv":
            row["real_time"] *= f
            row["cpu_time"] *= f
        if kernel_of(name) in kernels and "label" in row:
            row["label"] = re.sub(r"spirv:\S+", "spirv:" + RECOMPILED_SPIRV, row["label"])
    for k in kernels:
        if k in doc.get("sw_compiled", {}):
            doc["sw_compiled"][k]["spirv"] = RECOMPILED_SPIRV
    return doc


class ReplayServer:
    """`with ReplayServer(bin) as s:` a server with a fresh database in a temporary directory; s.post(...) posts a run
    with the server's `post` subcommand and returns its verdict."""

    def __init__(self, server):
        self.server = server

    def __enter__(self):
        self.tmp = tempfile.TemporaryDirectory()
        db = os.path.join(self.tmp.name, "replay.db")
        self.token = subprocess.run([self.server, "token", "create", "replay", "--db", db], check=True,
                                    capture_output=True, text=True).stdout.strip()
        self.serve = subprocess.Popen([self.server, "serve", "--db", db, "--port", "0", "--bind", "127.0.0.1"],
                                      stdout=subprocess.PIPE, text=True)
        m = re.search(r"listening on (http://\S+)", self.serve.stdout.readline())
        if not m:
            self.__exit__(None, None, None)
            sys.exit("error: the server did not say where it listens")
        self.url = m.group(1)
        return self

    def __exit__(self, *exc):
        self.serve.terminate()
        self.serve.wait()
        self.tmp.cleanup()

    def post(self, doc, run_id, commit, started_at, runner="h200-box", branch=None, merge_base=None):
        path = os.path.join(self.tmp.name, "doc.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        cmd = [self.server, "post", "--url", self.url, "--token", self.token, path, "--run-id", run_id, "--commit",
               commit, "--runner", runner, "--started-at", started_at]
        if branch:
            cmd += ["--branch", branch, "--merge-base", merge_base]
        subprocess.run(cmd, check=True, capture_output=True)
        with urllib.request.urlopen(f"{self.url}/api/v1/runs/{run_id}/verdict") as r:
            return json.load(r)
