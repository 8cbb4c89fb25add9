#!/usr/bin/env python3
"""Acknowledged runs survive kill -9: four posters post to a server; the server (and a `prune` or `backup` beside it,
where the binary has them) is killed with SIGKILL mid-post, restarted on the same SQLite file, and every run that had
been answered 201 must be there, whole (its results as posted). Prints one line per round.

    server/bench/kill_reliability.py SERVER_BIN [--rounds 5]
"""
import argparse, json, os, re, signal, subprocess, tempfile, threading, time, urllib.request, urllib.error

ap = argparse.ArgumentParser()
ap.add_argument("server")
ap.add_argument("--rounds", type=int, default=5)
a = ap.parse_args()
d = tempfile.mkdtemp()
db = os.path.join(d, "k.db")
commands = subprocess.run([a.server, "--help"], capture_output=True, text=True).stdout
has = lambda sub: re.search(r"^\s+" + sub + r"\b", commands, re.M) is not None


def start():
    p = subprocess.Popen([a.server, "serve", "--db", db, "--port", "0", "--bind", "127.0.0.1"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    port = int(re.search(r":(\d+) ", p.stdout.readline()).group(1))
    return p, port


def doc(n):
    rows = []
    for b in range(40):
        for r in range(10):
            rows.append({"name": f"f/v{b}/1/cold", "run_name": f"f/v{b}/1/cold", "run_type": "iteration", "repetitions": 10,
                         "repetition_index": r, "threads": 1, "iterations": 1, "real_time": 100 + b + r * 0.01 + n * 1e-3,
                         "cpu_time": 1.0, "time_unit": "us", "items_per_second": 1e6 + r})
    return rows


p, port = start()
tok = subprocess.run([a.server, "token", "create", "k", "--db", db], capture_output=True, text=True).stdout.split()[-1]
acked, lock = {}, threading.Lock()
for rnd in range(a.rounds):
    stop = threading.Event()

    def poster(g):
        i = 0
        while not stop.is_set():
            rid = f"r{rnd}-g{g}-{i}"
            body = json.dumps({"run": {"id": rid, "commit": f"c{i}", "runner": "k",
                                       "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1767225600 + rnd * 86400 + i * 60 + g))},
                               "benchmark": {"context": {"sw_device_name": f"GPU {g}"}, "benchmarks": doc(i)}}).encode()
            req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/runs", data=body, method="POST",
                                         headers={"Authorization": "Bearer " + tok, "Content-Type": "application/json"})
            try:
                if urllib.request.urlopen(req, timeout=10).status == 201:
                    with lock:
                        acked[rid] = 400
            except Exception:
                pass
            i += 1
    ts = [threading.Thread(target=poster, args=(g,)) for g in range(4)]
    for t in ts: t.start()
    time.sleep(1.5)
    side = None
    if rnd % 2 == 0 and has("prune"):
        side = subprocess.Popen([a.server, "prune", "--db", db, "--older-than-days", "0", "--keep-runs", "2"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elif has("backup"):
        side = subprocess.Popen([a.server, "backup", "--db", db, os.path.join(d, f"b{rnd}.db")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    os.kill(p.pid, signal.SIGKILL)
    if side:
        side.kill()
        side.wait()
    p.wait()
    stop.set()
    for t in ts: t.join()
    p, port = start()
    lost = 0
    for rid in list(acked):
        try:
            r = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/runs/{rid}", timeout=10))
            if r["run"]["results"] != acked[rid]:
                lost += 1
        except urllib.error.HTTPError:
            lost += 1
    beside = "nothing" if not side else "prune" if rnd % 2 == 0 and has("prune") else "backup"
    print(f"round {rnd + 1}: killed with {beside} beside it; "
          f"{len(acked)} runs acknowledged so far, {lost} lost or partial", flush=True)
p.kill()
