#!/usr/bin/env bash
# Installs every Debian 12 package shaderwatch needs to build, test and run (lavapipe as the
# Vulkan device where there is no GPU), then the dashboard's npm packages (pinned by
# server/web/package-lock.json). Run as root, or with sudo available.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  libvulkan-dev libvulkan-volk-dev glslang-dev glslang-tools spirv-tools
  mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libsqlite3-dev libpq-dev postgresql libcpp-httplib-dev libssl-dev nlohmann-json3-dev libcli11-dev
  libpng-dev curl python3
  chromium nginx openssl
)
# Node.js and npm from Debian, unless the machine already has a Node.js with its npm.
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The dashboard's JavaScript: uPlot (embedded in the server at build time) and puppeteer-core (drives
# Debian's chromium in the tests; it downloads no browser). Exactly the lockfile's versions.
root=$(cd "$(dirname "$0")/.." && pwd)
npm ci --prefix "$root/server/web" --no-audit --no-fund
