#!/usr/bin/env bash
# Quick local check before a commit: incremental build, then the correctness suite on the default device
# (lavapipe without a GPU) under the validation layer, and the reference tests. Seconds on lavapipe.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target shaderwatch-bench reference_tests
"$build/tests/reference_tests" --gtest_brief=1
"$build/harness/shaderwatch-bench" --check --validation
