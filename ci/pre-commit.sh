#!/usr/bin/env bash
# Quick local check before a commit: incremental build, the reference tests, then the correctness suite under
# the validation layer on the default device (lavapipe without a GPU) for the kernels a change touches.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  cat <<'EOF'
Usage: ci/pre-commit.sh [--all] [--dry-run] [--build DIR] [--pack DIR ...] | --install

Builds shaderwatch-bench and the reference tests (incrementally), runs the reference tests, then
`shaderwatch-bench --check --validation` on the default device for:
  - the kernels whose sources in kernels/, or files they #include, differ from HEAD (staged, unstaged
    or new files: the working tree is what is checked);
  - every kernel when harness/, reference/, contract/, kernels/catalog.*, kernels/expectations.json,
    kernels/*.cmake or a CMakeLists.txt changed, or with --all;
  - with --pack, the pack's kernels whose files differ from HEAD in the git repository that holds the
    pack (its shaders, their includes, a reference shader; its manifest or expectations.json: all
    of its kernels);
  - none when no such file changed.

  --all          check every kernel
  --dry-run      print the kernels that would be checked, then stop (builds the bench first)
  --build DIR    build directory (default: build/ in the repository; configured if it is not yet)
  --pack DIR     a kernel pack (shaderwatch-bench --pack) to select from and check too; repeatable
  --install      install this script as the repository's git pre-commit hook, then exit
  -h, --help     this text

Exit status: 0 everything passed; 1 a build, test or check failed; 2 bad usage, or a pre-commit hook
that this script did not install is in the way of --install.
EOF
}

all=0 dry_run=0 install=0 build=$root/build kernels=
packs=()
while [ $# -gt 0 ]; do
  case $1 in
    --all) all=1 ;;
    --dry-run) dry_run=1 ;;
    --install) install=1 ;;
    --build)
      [ $# -ge 2 ] || { echo "pre-commit: --build needs a directory" >&2; exit 2; }
      build=$2
      shift ;;
    --pack)
      [ $# -ge 2 ] || { echo "pre-commit: --pack needs a directory" >&2; exit 2; }
      [ -d "$2" ] || { echo "pre-commit: --pack $2: no such directory" >&2; exit 2; }
      git -C "$2" rev-parse --git-dir >/dev/null 2>&1 || { echo "pre-commit: --pack $2: not in a git repository" >&2; exit 2; }
      dir=$2
      while [ "${#dir}" -gt 1 ] && [ "${dir%/}" != "$dir" ]; do dir=${dir%/}; done  # as the bench prints it
      packs+=("$dir")
      shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "pre-commit: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

hook_marker="installed by ci/pre-commit.sh --install"
if [ "$install" = 1 ]; then
  hook=$(cd "$root" && git rev-parse --path-format=absolute --git-path hooks/pre-commit)
  if [ -e "$hook" ] && ! grep -q "$hook_marker" "$hook"; then
    echo "pre-commit: $hook exists and was not installed by this script; move it away first" >&2
    exit 2
  fi
  mkdir -p "$(dirname "$hook")"
  printf '#!/bin/sh\n# %s\nexec "$(git rev-parse --show-toplevel)/ci/pre-commit.sh"\n' "$hook_marker" >"$hook"
  chmod +x "$hook"
  echo "pre-commit: installed $hook"
  exit 0
fi

fail() { echo "pre-commit: $*" >&2; exit 1; }
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null || fail "cmake configure failed"
cmake --build "$build" -j"$(nproc)" --target shaderwatch-bench reference_tests || fail "the build failed"
bench=$build/harness/shaderwatch-bench
pack_args=()
for dir in ${packs[@]+"${packs[@]}"}; do pack_args+=(--pack "$dir"); done

# Files that differ from HEAD, and new files git does not ignore (all of them when there is no HEAD yet).
if git -C "$root" rev-parse --verify -q HEAD >/dev/null; then
  changed=$(git -C "$root" diff --name-only HEAD --; git -C "$root" ls-files --others --exclude-standard)
else
  all=1 changed=
fi
if [ "$all" = 0 ] && grep -qE '^(harness/|reference/|contract/|kernels/catalog\.|kernels/expectations\.json$|kernels/[^/]*\.cmake$|(.*/)?CMakeLists\.txt$)' <<<"$changed"; then
  all=1
fi

if [ "$all" = 1 ]; then
  filter='.*'
  echo "pre-commit: checking every kernel"
else
  shaders=$(grep -E '^kernels/[^/]+\.(comp|vert|frag|glsl)$' <<<"$changed" | sed 's|^kernels/||' || true)
  # A pack's changed files, as --list-sources names them (the directory as given, then the file), from its own
  # repository: a team's pack lives in the team's.
  for dir in ${packs[@]+"${packs[@]}"}; do
    shaders+=$'\n'$( (git -C "$dir" diff --name-only --relative HEAD -- . 2>/dev/null; git -C "$dir" ls-files --others --exclude-standard) |
                     sed "s|^|$dir/|")
  done
  # --list-sources: "kernel file file ..." per kernel; keep the kernels built from a changed file.
  kernels=$("$bench" ${pack_args[@]+"${pack_args[@]}"} --list-sources | awk -v changed="$shaders" '
    BEGIN { n = split(changed, f, "\n"); for (i = 1; i <= n; ++i) if (f[i] != "") want[f[i]] = 1 }
    { for (i = 2; i <= NF; ++i) if ($i in want) { print $1; break } }')
  if [ -z "$kernels" ]; then
    echo "pre-commit: no kernel sources changed since HEAD; no kernel to check (--all checks every one)"
  else
    echo "pre-commit: checking $(wc -l <<<"$kernels") kernel(s) built from changed sources: $(paste -sd' ' <<<"$kernels")"
  fi
  filter="^($(paste -sd'|' <<<"$kernels"))\$"
fi
[ "$dry_run" = 1 ] && exit 0

"$build/tests/reference_tests" --gtest_brief=1 || fail "the reference tests failed"
if [ "$all" = 1 ] || [ -n "$kernels" ]; then
  "$bench" ${pack_args[@]+"${pack_args[@]}"} --check --validation --filter "$filter" || fail "the correctness check failed (table above)"
fi
