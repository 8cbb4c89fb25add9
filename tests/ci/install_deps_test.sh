#!/usr/bin/env bash
# ci/install-deps.sh's roles: a GPU runner gets the bench's packages only (no browser, web server,
# database server, Node.js, GoogleTest or lavapipe), each larger role holds the smaller, an unknown role is
# refused (exit 4); and the runner's build (-DSHADERWATCH_SERVER=OFF -DSHADERWATCH_TESTS=OFF) configures
# without looking for a package of the server or the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
list() { bash "$root/ci/install-deps.sh" --print "$@"; }

runner=$(list runner) server=$(list server) all=$(list) tests=$(list test)
for p in chromium nginx postgresql nodejs npm libsqlite3-dev libpq-dev libgtest-dev mesa-vulkan-drivers "npm ci"; do
  ! grep -qx -- "$p.*" <<<"$runner" || fail "the runner role installs $p"
done
for p in libvulkan-dev libvulkan-volk-dev glslang-tools libbenchmark-dev libcpp-httplib-dev curl; do
  grep -qx -- "$p" <<<"$runner" || fail "the runner role lacks $p"
done
contains() {  # every line of $2 is in $1
  local missing
  missing=$(comm -13 <(sort -u <<<"$1") <(sort -u <<<"$2"))
  [ -z "$missing" ] || fail "$3 lacks: $missing"
}
contains "$server" "$runner" "the server role (the runner's packages)"
contains "$tests" "$server" "the test role (the server's packages)"
contains "$all" "$tests" "the default role"
for p in libsqlite3-dev libpq-dev libmimalloc-dev nginx "npm ci --prefix server/web"; do grep -qx -- "$p" <<<"$server" || fail "server lacks $p"; done
for p in chromium postgresql libgtest-dev mesa-vulkan-drivers vulkan-validationlayers; do
  grep -qx -- "$p" <<<"$tests" || fail "test lacks $p"
done

status=0
bash "$root/ci/install-deps.sh" --print nonsense 2>"$tmp/err" || status=$?
[ "$status" -eq 4 ] || fail "an unknown role exited $status, not 4"
grep -q "unknown role or option 'nonsense'" "$tmp/err" || fail "the error does not name the role: $(cat "$tmp/err")"

cmake -S "$root" -B "$tmp/build" -DSHADERWATCH_SERVER=OFF -DSHADERWATCH_TESTS=OFF >"$tmp/configure.log" 2>&1 ||
  fail "the runner's build does not configure: $(tail -20 "$tmp/configure.log")"
for v in GTest_DIR SQLite3_INCLUDE_DIR SW_LIBPQ_FOUND; do
  ! grep -q "^$v[:=]" "$tmp/build/CMakeCache.txt" || fail "the runner's build looked for $v"
done
grep -q "^SW_HTTPLIB_FOUND" "$tmp/build/CMakeCache.txt" || fail "the runner's build has no upload client (cpp-httplib)"
echo "install-deps roles: ok (runner $(wc -l <<<"$runner") packages, default $(wc -l <<<"$all") lines)"
