#!/usr/bin/env bash
# Installs the Debian 12 packages (and the dashboard's npm packages) shaderwatch needs, by role:
#   runner  a GPU runner: build shaderwatch-bench and post its results (not the server, not the tests)
#   server  adds what the results server needs to build and serve (SQLite, libpq, Node.js for the
#           dashboard's uPlot, nginx and openssl for its TLS front)
#   test    adds what the test suite needs (GoogleTest, lavapipe, the validation layer, PostgreSQL,
#           chromium for the dashboard's browser tests)
#   all     everything (the default: README's commands and CI)
# Usage: bash ci/install-deps.sh [--print] [runner|server|test|all]...
# --print lists the packages of the roles and installs nothing. Run as root, or with sudo available.
set -euo pipefail

runner=(
  build-essential cmake pkg-config git
  libbenchmark-dev libvulkan-dev libvulkan-volk-dev glslang-dev glslang-tools spirv-tools
  libcli11-dev nlohmann-json3-dev libpng-dev libcpp-httplib-dev libssl-dev curl
  libtomlplusplus-dev libmuparser-dev
)
server=(libsqlite3-dev libpq-dev libmimalloc-dev nginx openssl)
tests=(
  libgtest-dev libgmock-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  postgresql chromium python3
)

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }

print=0 roles=()
for arg in "$@"; do
  case "$arg" in
    --print) print=1 ;;
    -h | --help) usage; exit 0 ;;
    runner | server | test | all) roles+=("$arg") ;;
    *) echo "install-deps: unknown role or option '$arg' (roles: runner, server, test, all)" >&2; exit 4 ;;
  esac
done
[ ${#roles[@]} -gt 0 ] || roles=(all)

packages=() npm=0
for role in "${roles[@]}"; do
  case "$role" in
    runner) packages+=("${runner[@]}") ;;
    server) packages+=("${runner[@]}" "${server[@]}"); npm=1 ;;
    test | all) packages+=("${runner[@]}" "${server[@]}" "${tests[@]}"); npm=1 ;;
  esac
done
# Node.js and npm from Debian (the dashboard's packages), unless the machine already has a Node.js with its npm.
if [ $npm -eq 1 ] && ! { command -v node >/dev/null && command -v npm >/dev/null; }; then packages+=(nodejs npm); fi
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | awk '!seen[$0]++')

if [ $print -eq 1 ]; then
  printf '%s\n' "${packages[@]}"
  [ $npm -eq 0 ] || echo "npm ci --prefix server/web"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps (${roles[*]}): installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The dashboard's JavaScript: uPlot (embedded in the server at build time) and puppeteer-core (drives
# Debian's chromium in the tests; it downloads no browser). Exactly the lockfile's versions.
if [ $npm -eq 1 ]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  npm ci --prefix "$root/server/web" --no-audit --no-fund
fi
