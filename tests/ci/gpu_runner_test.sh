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
for f in results.json verdict.json junit.xml summary.md results.csv check.txt; do
  [ -s "$tmp/artifacts/$f" ] || fail "artifact $f missing or empty"
done
# The correctness suite with race delays ran on the device, every kernel, and passed.
grep -q "^race delays: on" "$tmp/artifacts/check.txt" || fail "check.txt: no race delays: $(head -5 "$tmp/artifacts/check.txt")"
grep -qE "^[0-9]{3} runs: .*; 0 unexpected failures$" "$tmp/artifacts/check.txt" || fail "check.txt: $(tail -3 "$tmp/artifacts/check.txt")"
grep -q "gpu-runner: --check --race on the default device: " "$tmp/runner.log" || fail "the runner did not report the check"

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
assert all(c.get("time") is None for c in cases), "a testcase time: the run records no duration per benchmark (its median is none)"
assert not root.findall(".//failure"), "a failure on a passing run"
props = {p.get("name"): p.get("value") for p in root.findall("./testsuite/properties/property")}
assert props["runner"] == "test-runner" and props["branch"] == "main" and props["commit"], props
rows = list(csv.DictReader(open(f"{d}/results.csv")))
assert {r["name"] for r in rows} == names and all(r["status"] == "PASS" for r in rows), rows
assert all(float(r["median_us"]) > 0 for r in rows)
PY

# A wrong answer in the check alone (its --corrupt-output, one kernel): exit 1, the failure named in check.txt.
status=0
SHADERWATCH_CHECK_ARGS="--filter ^lum/sequential_256$ --corrupt-output lum/sequential_256" \
  bash "$root/ci/gpu-runner.sh" >"$tmp/runner-check.log" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "a wrong answer in --check: gpu-runner.sh exited $status, not 1: $(tail -5 "$tmp/runner-check.log")"
grep -q "^FAIL: kernel lum/sequential_256" "$tmp/artifacts/check.txt" || fail "check.txt does not name the failure"
grep -q "found a wrong answer" "$tmp/runner-check.log" || fail "the runner did not say why it failed"
export SHADERWATCH_CHECK=0  # the runs below are about the benchmark

# A wrong answer (the bench's --corrupt-output spoils lum/sequential_256's output before its check): exit 1,
# and junit.xml has a <failure> for each of its benchmarks.
base_args=$SHADERWATCH_BENCH_ARGS
export SHADERWATCH_BENCH_ARGS="$base_args --corrupt-output lum/sequential_256"
status=0
bash "$root/ci/gpu-runner.sh" >"$tmp/runner-wrong.log" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "a wrong answer: gpu-runner.sh exited $status, not 1: $(tail -5 "$tmp/runner-wrong.log")"
# junit.xml's testcases of lum/sequential_256: each a <failure> (wrong) or an expected failure (expected).
cat >"$tmp/check_junit.py" <<'PY'
import sys, xml.etree.ElementTree as ET
d, case = sys.argv[1], sys.argv[2]
cases = ET.parse(f"{d}/junit.xml").getroot().findall("./testsuite/testcase")
seq = [c for c in cases if c.get("classname") == "lum/sequential_256"]
other = [c for c in cases if c.get("classname") != "lum/sequential_256"]
assert seq and other, [c.get("classname") for c in cases]
if case == "wrong":
    assert all(c.find("failure") is not None and "got 1.00000002e+30" in c.find("failure").text for c in seq), \
        [ET.tostring(c) for c in seq]
else:
    assert all(c.find("failure") is None and "XFAIL" in c.find("system-out").text and "driver bug 1234" in c.find("system-out").text
               for c in seq), [ET.tostring(c) for c in seq]
assert all(c.find("failure") is None for c in other)
PY
python3 "$tmp/check_junit.py" "$tmp/artifacts" wrong || fail "junit.xml of the wrong answer"
grep -q '"verdict": *"fail"' "$tmp/artifacts/verdict.json" || fail "the server's verdict on a wrong answer is not fail"

# The same wrong answer, expected by an entry of this runner's expectations file: exit 0, an expected failure.
cat >"$tmp/expectations.json" <<'JSON'
{"expectations": [{"id": "test driver bug", "kernel": "lum/sequential_*", "driver": "*", "expect": "fail",
                   "reason": "driver bug 1234"}]}
JSON
export SHADERWATCH_EXPECTATIONS=$tmp/expectations.json
status=0
bash "$root/ci/gpu-runner.sh" >"$tmp/runner-expected.log" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "an expected failure: gpu-runner.sh exited $status, not 0: $(tail -5 "$tmp/runner-expected.log")"
python3 "$tmp/check_junit.py" "$tmp/artifacts" expected || fail "junit.xml of the expected failure"
grep -q '"verdict": *"pass"' "$tmp/artifacts/verdict.json" || fail "the server's verdict on an expected failure is not pass"
grep -q '^lum/sequential_256/[^,]*,XFAIL,' "$tmp/artifacts/results.csv" || fail "results.csv lacks the XFAIL rows"
unset SHADERWATCH_EXPECTATIONS
export SHADERWATCH_BENCH_ARGS=$base_args

# Mistakes in the set-up: exit 4, found before any GPU work (no benchmark ran), the bench's own message
# passed through.
expect_status() {  # expect_status STATUS LOG MESSAGE: run the runner, check its exit status and message
  local want=$1 log=$2 message=$3 status=0
  bash "$root/ci/gpu-runner.sh" >"$tmp/$log" 2>&1 || status=$?
  [ "$status" -eq "$want" ] || fail "$log: gpu-runner.sh exited $status, not $want: $(tail -5 "$tmp/$log")"
  grep -qF -- "$message" "$tmp/$log" || fail "$log: no '$message' in: $(tail -5 "$tmp/$log")"
  ! grep -q '^\[1/' "$tmp/$log" || fail "$log: benchmarks ran before the mistake was found"
}
SHADERWATCH_DEVICE=no-such-gpu expect_status 4 runner-device.log "--device 'no-such-gpu' matches no device"
SHADERWATCH_BENCH_ARGS="$base_args --filter nothing-matches" expect_status 4 runner-filter.log "matched no kernel"
SHADERWATCH_BENCH_ARGS="--quick --benchmark_filter=^no-such-benchmark" expect_status 4 runner-empty.log "select no benchmark"
SHADERWATCH_TOKEN=not-a-token expect_status 4 runner-token.log "refuses the token"
SHADERWATCH_URL= expect_status 4 runner-url.log "set SHADERWATCH_URL"

# The server is gone: exit 3, the CI system's "infrastructure" code, before any GPU work.
export SHADERWATCH_URL=http://127.0.0.1:9 SHADERWATCH_BENCH_ARGS="$SHADERWATCH_BENCH_ARGS --post-attempts 1"
expect_status 3 runner2.log "cannot be reached"
echo "gpu-runner: artifacts and exit codes as documented"
