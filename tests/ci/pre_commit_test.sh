#!/usr/bin/env bash
# ci/pre-commit.sh in a scratch clone of this repository (the script under test copied in and committed):
# which kernels a change selects (none, the ones including a changed file, every one), a real check of one
# changed shader on the default device (lavapipe here), and --install as the clone's git hook.
# Usage: pre_commit_test.sh BUILD_DIR (a configured and built tree of this repository)
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=$build/harness/shaderwatch-bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

repo=$tmp/repo
git clone -q "$root" "$repo"
cp "$root/ci/pre-commit.sh" "$repo/ci/pre-commit.sh"
git -C "$repo" -c user.name=test -c user.email=test@example.invalid commit -q -am "the script under test" --allow-empty
plan() { bash "$repo/ci/pre-commit.sh" --dry-run --build "$build" 2>&1 | grep '^pre-commit:' || true; }

# Nothing changed since HEAD: no kernel.
out=$(plan)
grep -q "no kernel sources changed" <<<"$out" || fail "clean tree: $out"

# A file every luminance kernel includes: exactly the kernels --list-sources says are built from it.
echo "// touched" >>"$repo/kernels/luminance_common.glsl"
expected=$("$bench" --list-sources | awk '/ luminance_common\.glsl( |$)/ { print $1 }' | sort)
[ "$(wc -l <<<"$expected")" -ge 10 ] || fail "--list-sources names too few users of luminance_common.glsl: $expected"
out=$(plan)
got=$(sed -n 's/^pre-commit: checking [0-9]* kernel(s) built from changed sources: //p' <<<"$out" | tr ' ' '\n' | sort)
[ "$got" = "$expected" ] || fail "luminance_common.glsl selected: $got; expected: $expected"
grep -qE 'postfx/|boids/' <<<"$got" && fail "a luminance include selected other families: $got"
git -C "$repo" checkout -q -- kernels/luminance_common.glsl

# A new, untracked shader file counts too (nothing is built from it: no kernel), and a harness file means all.
echo "// new" >"$repo/kernels/unused_new.glsl"
out=$(plan)
grep -q "no kernel sources changed" <<<"$out" || fail "an unused new file selected kernels: $out"
rm "$repo/kernels/unused_new.glsl"
echo "// touched" >>"$repo/harness/check/check.cpp"
out=$(plan)
grep -q "checking every kernel" <<<"$out" || fail "a harness change: $out"
git -C "$repo" checkout -q -- harness/check/check.cpp

# One changed shader, checked for real (the bench of BUILD_DIR runs the kernels the change selects).
echo "// touched" >>"$repo/kernels/postfx_blur.comp"
start=$(date +%s%N)
bash "$repo/ci/pre-commit.sh" --build "$build" >"$tmp/run.log" 2>&1 || fail "pre-commit on one shader: $(tail -20 "$tmp/run.log")"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
grep -q "^pre-commit: checking [0-9]* kernel(s) built from changed sources: postfx/blur" "$tmp/run.log" ||
  fail "postfx_blur.comp: $(grep '^pre-commit' "$tmp/run.log")"
grep -qE '^(lum|boids)/' "$tmp/run.log" && fail "kernels of other files were checked: $(grep -E '^(lum|boids)/' "$tmp/run.log" | head -3)"
grep -q "PASS" "$tmp/run.log" || fail "no PASS row in the check: $(tail -20 "$tmp/run.log")"
echo "one-shader pre-commit check: ${ms} ms (not asserted: shared machines)"

# A kernel pack's files select its kernels (--pack, as the bench takes it): a reference shader the kernel it checks,
# the manifest every kernel of the pack; checked for real with the pack.
git -C "$repo" checkout -q -- kernels/postfx_blur.comp
pack=kernels/packs/example_glsl
plan_pack() { (cd "$repo" && bash ci/pre-commit.sh --dry-run --build "$build" --pack "$pack/" 2>&1) | grep '^pre-commit:' || true; }
echo "// touched" >>"$repo/$pack/box3_reference.comp"
out=$(plan_pack)
grep -qx "pre-commit: checking 1 kernel(s) built from changed sources: example_glsl/box3_shared" <<<"$out" ||
  fail "a pack's reference shader: $out"
(cd "$repo" && bash ci/pre-commit.sh --build "$build" --pack "$pack" >"$tmp/pack.log" 2>&1) || fail "pre-commit on a pack: $(tail -20 "$tmp/pack.log")"
grep -qE '^example_glsl/box3_shared +[0-9]+x[0-9]+ .* PASS' "$tmp/pack.log" || fail "no PASS row of the pack kernel: $(tail -20 "$tmp/pack.log")"
git -C "$repo" checkout -q -- "$pack/box3_reference.comp"
echo "# touched" >>"$repo/$pack/pack.toml"
out=$(plan_pack)
got=$(sed -n 's/^pre-commit: checking [0-9]* kernel(s) built from changed sources: //p' <<<"$out" | tr ' ' '\n' | sort | paste -sd' ')
[ "$got" = "example_glsl/box3_shared example_glsl/tile_sum_subgroup example_glsl/tonemap_reinhard_8x8" ] ||
  fail "a pack's manifest: $out"
git -C "$repo" checkout -q -- "$pack/pack.toml"
status=0
bash "$repo/ci/pre-commit.sh" --dry-run --pack "$tmp/nowhere" >"$tmp/nopack.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q -- "--pack $tmp/nowhere: no such directory" "$tmp/nopack.log" || fail "a missing pack: exit $status, $(cat "$tmp/nopack.log")"

# Bad usage is exit 2 and says what is wrong.
status=0
bash "$repo/ci/pre-commit.sh" --frobnicate >"$tmp/usage.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "unknown argument '--frobnicate'" "$tmp/usage.log" || fail "bad usage: exit $status, $(cat "$tmp/usage.log")"

# --install writes the hook (again, idempotently), and refuses to replace a hook it did not write.
hook=$repo/.git/hooks/pre-commit
bash "$repo/ci/pre-commit.sh" --install >/dev/null || fail "--install failed"
[ -x "$hook" ] && grep -q 'ci/pre-commit.sh' "$hook" || fail "no executable hook at $hook"
bash "$repo/ci/pre-commit.sh" --install >/dev/null || fail "a second --install failed"
printf '#!/bin/sh\necho mine\n' >"$hook"
status=0
bash "$repo/ci/pre-commit.sh" --install >"$tmp/install.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "was not installed by this script" "$tmp/install.log" || fail "foreign hook: exit $status"
grep -q "echo mine" "$hook" || fail "--install overwrote a foreign hook"
echo "PASS"
