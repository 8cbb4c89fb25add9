#!/usr/bin/env bash
# CI job for a GPU runner: build, benchmark every kernel on this machine's GPU, upload the results to the
# shaderwatch server, and gate on the server's verdict for this run (correctness or time regressions fail).
# Environment: SHADERWATCH_URL (e.g. http://results:8080), SHADERWATCH_TOKEN (upload token),
# optional SHADERWATCH_RUNNER (default: hostname), SHADERWATCH_JOB_URL, SHADERWATCH_DEVICE (default device),
# SHADERWATCH_BENCH_ARGS (extra shaderwatch-bench flags), SHADERWATCH_BUILD (build directory),
# SHADERWATCH_BRANCH (default: the checked-out branch; none when detached: the server's main branch) and,
# for a branch other than main, SHADERWATCH_MERGE_BASE (the main commit it forked from: its verdict is
# judged against main's level there).
# SHADERWATCH_COMMIT: the commit measured (default: the checkout's HEAD).
# SHADERWATCH_BENCH: a built shaderwatch-bench to use instead of building one.
# SHADERWATCH_EXPECTATIONS: an expectations file of this runner's own, added to kernels/expectations.json
# (which always applies: expected failures, flaky kernels and skips per device and driver, with reasons).
# After the benchmark, `shaderwatch-bench --check --race` runs the correctness suite on each device: every kernel
# on the edge-case inputs, with race delays that make a missing barrier show (about 7 s on an H200); its output
# goes to check.txt beside the other artifacts. SHADERWATCH_CHECK_ARGS: extra flags for it (--filter, --repeat N);
# SHADERWATCH_CHECK=0 leaves it out.
# Artifacts, in SHADERWATCH_ARTIFACTS (default: artifacts/ in the build directory): results.json (the
# Google Benchmark output), verdict.json, and the server's renderings of the run: junit.xml (one
# testcase per benchmark), summary.md (for a PR comment; also appended to $GITHUB_STEP_SUMMARY when
# set) and results.csv. With SHADERWATCH_DEVICE=all on several GPUs each device is its own run
# (<run id>-dev<N>): the bench writes its document as results-dev<N>.json, and its four files go into
# dev<N>/. SHADERWATCH_DASHBOARD: the dashboard's base URL for their links (default: the server's URL).
# Exit status, one meaning each, the bench's own (harness/common/exit_status.h) plus 2, for the CI system to tell
# a broken kernel from a broken machine or a wrong set-up:
#   0 pass; 1 a wrong answer or a kernel that failed in the bench (or the bench did not build);
#   2 the server's verdict failed on a regression; 3 infrastructure: no Vulkan device, a device lost, the
#   server unreachable or failing, the verdict unreadable; 4 usage or configuration: a variable missing,
#   an unknown SHADERWATCH_DEVICE, flags or a filter that select nothing, a token the server refuses.
# The bench checks its flags, the device, the output file, the server and the token before any GPU work
# and names what is wrong; its message is passed through.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage_error() { echo "gpu-runner: $*" >&2; exit 4; }
[ -n "${SHADERWATCH_URL:-}" ] || usage_error "set SHADERWATCH_URL to the results server, e.g. http://results:8080"
[ -n "${SHADERWATCH_TOKEN:-}" ] || usage_error "set SHADERWATCH_TOKEN to an upload token (shaderwatch-server token create NAME)"
build=${SHADERWATCH_BUILD:-$root/build-gpu}
bench=${SHADERWATCH_BENCH:-}
if [ -z "$bench" ]; then
  { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build "$build" -j"$(nproc)" --target shaderwatch-bench; } || {
    echo "gpu-runner: shaderwatch-bench did not build (see above)" >&2
    exit 1
  }
  bench=$build/harness/shaderwatch-bench
fi
[ -x "$bench" ] || usage_error "SHADERWATCH_BENCH '$bench' is not an executable"
artifacts=${SHADERWATCH_ARTIFACTS:-$build/artifacts}
mkdir -p "$artifacts"
commit=${SHADERWATCH_COMMIT:-$(git -C "$root" rev-parse HEAD)}
branch=${SHADERWATCH_BRANCH:-$(git -C "$root" rev-parse --abbrev-ref HEAD)}
if [ "$branch" = HEAD ]; then
  echo "gpu-runner: detached HEAD and no SHADERWATCH_BRANCH: posting as the server's main branch" >&2
  branch=
fi
runner=${SHADERWATCH_RUNNER:-$(hostname)}
run_id="$runner-$commit-$(date -u +%Y%m%dT%H%M%SZ)"
out=$artifacts/results.json
rm -f "$out" "$artifacts"/results-dev*.json  # a device list from this run's documents only
bench_status=0
# The bench posts its own results (token from SHADERWATCH_TOKEN), even when a kernel gave a wrong answer:
# the server records the correctness failure.
# shellcheck disable=SC2086 # SHADERWATCH_BENCH_ARGS is a list of flags
"$bench" ${SHADERWATCH_DEVICE:+--device "$SHADERWATCH_DEVICE"} ${SHADERWATCH_EXPECTATIONS:+--expectations "$SHADERWATCH_EXPECTATIONS"} \
  ${SHADERWATCH_BENCH_ARGS:-} \
  --benchmark_out="$out" --benchmark_out_format=json --post "$SHADERWATCH_URL" --run-id "$run_id" \
  --commit "$commit" ${branch:+--branch "$branch"} --runner "$runner" \
  ${SHADERWATCH_MERGE_BASE:+--merge-base "$SHADERWATCH_MERGE_BASE"} ${SHADERWATCH_JOB_URL:+--job-url "$SHADERWATCH_JOB_URL"} ||
  bench_status=$?
case $bench_status in
  0 | 1) ;;  # results posted: the verdict is read either way
  3)
    echo "gpu-runner: infrastructure: shaderwatch-bench could not use the device or post to $SHADERWATCH_URL (its message is above)" >&2
    exit 3 ;;
  4)
    echo "gpu-runner: configuration: shaderwatch-bench refused its flags or set-up before any GPU work (its message is above)" >&2
    exit 4 ;;
  *)
    echo "gpu-runner: infrastructure: shaderwatch-bench ended with status $bench_status (a crash or a signal; see above)" >&2
    exit 3 ;;
esac
# One run per device: with SHADERWATCH_DEVICE=all and several GPUs the bench wrote results-dev<N>.json and
# posted it as <run id>-dev<N>, and each device's verdict and renderings go into $artifacts/dev<N>/.
devices=$(find "$artifacts" -maxdepth 1 -name 'results-dev*.json' -printf '%f\n' | sed 's/^results-dev\([0-9]*\)\.json$/\1/' | sort -n)
fetch() {  # fetch RUN DIR FILE [CURL ARGS]: one of a run's files from the server into DIR
  local run=$1 dir=$2 file=$3
  shift 3
  curl -fsS --retry 3 -G "$@" -o "$dir/$file" "$SHADERWATCH_URL/api/v1/runs/$run/${file%.json}" || {
    echo "gpu-runner: could not read ${file%.json} of run $run from $SHADERWATCH_URL" >&2
    exit 3
  }
}
verdict_failed=0
for dev in ${devices:-single}; do
  run=$run_id dir=$artifacts
  if [ "$dev" != single ]; then
    run=$run_id-dev$dev dir=$artifacts/dev$dev
    mkdir -p "$dir"
  fi
  fetch "$run" "$dir" verdict.json
  for f in junit.xml summary.md results.csv; do
    fetch "$run" "$dir" "$f" --data-urlencode "dashboard=${SHADERWATCH_DASHBOARD:-$SHADERWATCH_URL}"
  done
  [ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$dir/summary.md" >>"$GITHUB_STEP_SUMMARY"
  cat "$dir/verdict.json"
  echo
  grep -q '"verdict": *"pass"' "$dir/verdict.json" || verdict_failed=1
done
# The correctness suite with race delays, one device at a time (--check takes one).
check_failed=0
if [ "${SHADERWATCH_CHECK:-1}" != 0 ]; then
  if [ "${SHADERWATCH_DEVICE:-}" = all ]; then
    check_devices=$("$bench" --list-devices | sed -n 's/^\([0-9][0-9]*\): .*/\1/p')
  else
    check_devices=${SHADERWATCH_DEVICE:-}  # one line: the runner's device, or empty for the default
  fi
  while IFS= read -r dev; do
    dir=$artifacts device_flag=()
    [ -z "$dev" ] || device_flag=(--device "$dev")
    [ "${SHADERWATCH_DEVICE:-}" = all ] && dir=$artifacts/dev$dev && mkdir -p "$dir"
    check_status=0
    # shellcheck disable=SC2086 # SHADERWATCH_CHECK_ARGS is a list of flags
    "$bench" --check --race "${device_flag[@]}" ${SHADERWATCH_EXPECTATIONS:+--expectations "$SHADERWATCH_EXPECTATIONS"} \
      ${SHADERWATCH_CHECK_ARGS:-} >"$dir/check.txt" 2>&1 || check_status=$?
    echo "gpu-runner: --check --race on ${dev:-the default device}: $(tail -1 "$dir/check.txt")" >&2
    case $check_status in
      0) ;;
      1) check_failed=1 ;;
      4) echo "gpu-runner: configuration: --check refused its set-up (see $dir/check.txt)" >&2; exit 4 ;;
      *) echo "gpu-runner: infrastructure: --check ended with status $check_status (see $dir/check.txt)" >&2; exit 3 ;;
    esac
  done <<<"$check_devices"
fi
echo "gpu-runner: artifacts in $artifacts" >&2
if [ "$check_failed" -ne 0 ]; then
  echo "gpu-runner: --check --race found a wrong answer (see check.txt: each failure is named at its end)" >&2
  exit 1
fi
if [ "$bench_status" -ne 0 ]; then
  echo "gpu-runner: shaderwatch-bench exited $bench_status (a wrong answer or a kernel that failed; see above)" >&2
  exit 1
fi
[ "$verdict_failed" -eq 0 ] || { echo "gpu-runner: the server's verdict is fail (a regression; see above)" >&2; exit 2; }
