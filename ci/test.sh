#!/usr/bin/env bash
# Builds everything with warnings as errors and runs the whole test suite (ctest) on the default Vulkan
# device: lavapipe on machines without a GPU. Usage: bash ci/test.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-test}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSHADERWATCH_WERROR=ON
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
