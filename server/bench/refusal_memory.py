#!/usr/bin/env python3
"""Peak memory of a shaderwatch-server refusing three 60 MiB bodies at once.
usage: server/bench/refusal_memory.py SERVER_BIN KIND   (KIND: truncated | badfield)"""
import json, os, subprocess, sys, tempfile, threading, time, urllib.request, re
bin_, kind = sys.argv[1], sys.argv[2]
d = tempfile.mkdtemp()
db = os.path.join(d, "m.db")
srv = subprocess.Popen([bin_, "serve", "--db", db, "--port", "0", "--bind", "127.0.0.1"], stdout=subprocess.PIPE, text=True)
line = srv.stdout.readline()
port = int(re.search(r":(\d+) ", line).group(1))
tok = subprocess.run([bin_, "token", "create", "m", "--db", db], capture_output=True, text=True).stdout.strip().split()[-1]
row = {"name": "fam/v/1/cold", "family_index": 0, "per_family_instance_index": 0, "run_name": "fam/v/1/cold",
       "run_type": "iteration", "repetitions": 10, "repetition_index": 0, "threads": 1, "iterations": 1,
       "real_time": 12.16, "cpu_time": 3.48, "time_unit": "us", "bytes_per_second": 1212631578947.3684,
       "items_per_second": 75789473684.21053, "label": "spirv:7ee3f9057fc10a53 stop:stable-median"}
one = json.dumps(row)
n = (60 << 20) // (len(one) + 1)
head = json.dumps({"run": {"id": "big", "commit": "c", "runner": "r", "started_at": "2026-01-01T00:00:00Z"}})[:-1]
body = head + ', "benchmark": {"context": {"date": "2026-01-01T00:00:00+00:00"}, "benchmarks": [' + ",".join([one] * n)
if kind == "truncated":
    body = body[: (60 << 20)]
else:  # valid JSON, refused for a field: the last row's time is text
    body += "," + one.replace('"real_time": 12.16', '"real_time": "slow"') + "]}}"
data = body.encode()
print(f"body {len(data) / 2**20:.1f} MiB ({kind})")
def rss():
    st = open(f"/proc/{srv.pid}/status").read()
    return {k: int(re.search(k + r":\s+(\d+)", st).group(1)) // 1024 for k in ("VmRSS", "VmHWM")}
print("idle", rss())
codes = []
def post():
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/runs", data=data, method="POST",
                                 headers={"Authorization": "Bearer " + tok, "Content-Type": "application/json"})
    try:
        codes.append(urllib.request.urlopen(req, timeout=300).status)
    except urllib.error.HTTPError as e:
        codes.append(e.code)
ts = [threading.Thread(target=post) for _ in range(3)]
t0 = time.time()
for t in ts: t.start()
for t in ts: t.join()
print("answers", codes, f"{time.time() - t0:.1f} s", "peak", rss())
srv.terminate(); srv.wait()
