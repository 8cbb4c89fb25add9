#!/usr/bin/env bash
# ci/gpu-runner.sh with SHADERWATCH_DEVICE=all on a machine with several GPUs, against a results server on
# loopback: one bench invocation measures every GPU, the post stores one run per GPU, and the server's
# compare sets the runs side by side (what the dashboard's comparison page shows). The database, the
# artifacts and the logs go to OUT_DIR; a table is printed last.
# Usage (on the GPU machine, with shaderwatch-server and shaderwatch-bench on PATH or in SHADERWATCH_SERVER
# and SHADERWATCH_BENCH):   multi_gpu_job.sh OUT_DIR [shaderwatch-bench flags...]
set -euo pipefail
out=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
server=${SHADERWATCH_SERVER:-$(command -v shaderwatch-server)}
bench=${SHADERWATCH_BENCH:-$(command -v shaderwatch-bench)}
mkdir -p "$out"
"$server" serve --db "$out/sw.db" --port 0 >"$out/server.log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "listening on" "$out/server.log" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$out/server.log" | head -1)
[ -n "$url" ] || { echo "multi_gpu_job: the server did not start: $(cat "$out/server.log")" >&2; exit 3; }
export SHADERWATCH_URL=$url
SHADERWATCH_TOKEN=$("$server" token create gpu-job --db "$out/sw.db" 2>/dev/null)
export SHADERWATCH_TOKEN SHADERWATCH_BENCH=$bench SHADERWATCH_DEVICE=all SHADERWATCH_BRANCH=main
export SHADERWATCH_COMMIT=${SHADERWATCH_COMMIT:-$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)}
export SHADERWATCH_RUNNER=${SHADERWATCH_RUNNER:-$(hostname)} SHADERWATCH_ARTIFACTS=$out/artifacts
export SHADERWATCH_BENCH_ARGS="$*"
status=0
bash "$root/ci/gpu-runner.sh" >"$out/runner.log" 2>&1 || status=$?
echo "gpu-runner.sh exited $status (log: runner.log)"
python3 - "$url" "$out" <<'PY'
import json, sys, urllib.request
url, out = sys.argv[1], sys.argv[2]
get = lambda path: json.load(urllib.request.urlopen(url + path))
runs = sorted(get("/api/v1/runs?limit=50")["runs"], key=lambda r: r["id"])
print(f"\n{'run':<40} {'GPU':<24} {'driver':<22} {'uuid':<10} {'bench':>5} {'fail':>4} verdict")
for r in runs:
    run = get(f"/api/v1/runs/{r['id']}")
    v = get(f"/api/v1/runs/{r['id']}/verdict")
    meta = run["run"]
    print(f"{meta['id']:<40} {meta['gpu']['name']:<24} {(meta['driver']['name'] + ' ' + meta['driver']['info'])[:22]:<22} "
          f"{meta.get('device_uuid', '')[:8]:<10} {len(run['points']) + len(run['not_measured']):>5} {len(v['correctness']):>4} {v['verdict']}")
    for p in run["points"]:
        if p["benchmark"] in ("lum/subgroup_add_256/1920x1080/hot", "postfx/blur_shared_r16/1920x1080/hot", "boids/groupshared/1048576/hot"):
            print(f"    {p['benchmark']:<44} median {p['value_ns'] / 1e3:9.2f} us")
if len(runs) >= 2:
    c = get(f"/api/v1/compare?base={runs[0]['id']}&contender={runs[1]['id']}")
    json.dump(c, open(f"{out}/compare.json", "w"), indent=1)
    rows = c["benchmarks"] if "benchmarks" in c else c.get("rows", [])
    verdicts = {}
    for row in rows:
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
    print(f"\ncompare {runs[1]['id']} against {runs[0]['id']}: {len(rows)} benchmarks, geomean delta "
          f"{c.get('geomean_delta_pct')}%, verdicts {verdicts}")
PY
exit "$status"
