#!/usr/bin/env bash
# ci/gpu-runner.sh end to end on the default Vulkan device (lavapipe here) against a real server on a
# loopback port: the five artifacts are written, junit.xml parses with one testcase per benchmark, the
# step summary is appended, and an unreachable server is exit 3 (infrastructure), not a wrong answer.
# Usage: gpu_runner_test.sh SERVER_BIN BENCH_BIN
set -euo pipefail
server=$1 bench=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
server_pid=
cleanup() {
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$server" serve --db "$tmp/db" --port 0 >"$tmp/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$tmp/server.log" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/server.log" | head -1)
[ -n "$url" ] || fail "the server did not start: $(cat "$tmp/server.log")"
token=$("$server" token create runner-test --db "$tmp/db" 2>/dev/null)

export SHADERWATCH_URL=$url SHADERWATCH_TOKEN=$token SHADERWATCH_BENCH=$bench SHADERWATCH_BRANCH=main
export SHADERWATCH_RUNNER=test-runner SHADERWATCH_ARTIFACTS=$tmp/artifacts GITHUB_STEP_SUMMARY=$tmp/step-summary.md
export SHADERWATCH_BENCH_ARGS="--quick --benchmark_filter=^lum/(subgroup_add_256|sequential_256)/ --benchmark_min_time=0.01"
status=0
bash "$root/ci/gpu-runner.sh" >"$tmp/runner.log" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "gpu-runner.sh exited $status: $(tail -20 "$tmp/runner.log")"
for f in results.json verdict.json junit.xml summary.md results.csv; do
  [ -s "$tmp/artifacts/$f" ] || fail "artifact $f missing or empty"
done
run_id=$(grep -o '"run_id":"[^"]*"' "$tmp/artifacts/verdict.json" | head -1 | cut -d'"' -f4)
[ -n "$run_id" ] || fail "verdict.json names no run"
grep -qF "<!-- shaderwatch-run: $run_id -->" "$tmp/artifacts/summary.md" || fail "summary.md lacks the run marker"
grep -q "shaderwatch: pass" "$tmp/artifacts/summary.md" || fail "summary.md lacks the verdict line"
cmp -s "$tmp/artifacts/summary.md" "$tmp/step-summary.md" || fail "the summary was not appended to GITHUB_STEP_SUMMARY"
python3 - "$tmp/artifacts" <<'PY' || fail "junit.xml or results.csv do not match results.json"
import csv, json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
doc = json.load(open(f"{d}/results.json"))
names = {b["run_name"] for b in doc["benchmarks"] if b.get("run_type") == "iteration"}
assert len(names) >= 2, names
root = ET.parse(f"{d}/junit.xml").getroot()
cases = root.findall("./testsuite/testcase")
got = {c.get("classname") + "/" + c.get("name") for c in cases}
assert len(cases) == len(names) and got == names, (sorted(got), sorted(names))
assert all(float(c.get("time")) > 0 for c in cases), "a testcase without its median time"
assert not root.findall(".//failure"), "a failure on a passing run"
props = {p.get("name"): p.get("value") for p in root.findall("./testsuite/properties/property")}
assert props["runner"] == "test-runner" and props["branch"] == "main" and props["commit"], props
rows = list(csv.DictReader(open(f"{d}/results.csv")))
assert {r["name"] for r in rows} == names and all(r["status"] == "PASS" for r in rows), rows
assert all(float(r["median_us"]) > 0 for r in rows)
PY

# The server is gone: exit 3, the CI system's "infrastructure" code.
export SHADERWATCH_URL=http://127.0.0.1:9 SHADERWATCH_BENCH_ARGS="$SHADERWATCH_BENCH_ARGS --post-attempts 1"
status=0
bash "$root/ci/gpu-runner.sh" >"$tmp/runner2.log" 2>&1 || status=$?
[ "$status" -eq 3 ] || fail "with no server gpu-runner.sh exited $status, not 3: $(tail -5 "$tmp/runner2.log")"
echo "gpu-runner: artifacts and exit codes as documented"
