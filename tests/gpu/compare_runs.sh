#!/usr/bin/env bash
# Posts two shaderwatch-bench JSON files (plain or .gz) to a throwaway local results server and prints
# what /api/v1/compare says of them: benchmarks with a p-value, and how many it calls different.
# Usage: tests/gpu/compare_runs.sh BUILD_DIR BASE.json[.gz] CONTENDER.json[.gz] [COMPARE_OUT.json]
set -euo pipefail
build=$1 base=$2 cont=$3 out=${4:-}
server=$build/server/shaderwatch-server
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
plain() { case $1 in *.gz) gunzip -c "$1" >"$2" ;; *) cp "$1" "$2" ;; esac; }
plain "$base" "$dir/base.json"
plain "$cont" "$dir/cont.json"
token=$("$server" token create --db "$dir/sw.db" compare | tail -n 1)
"$server" serve --db "$dir/sw.db" --port 0 >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q 'listening' "$dir/serve.log" && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' "$dir/serve.log" | head -n 1)
"$server" post --url "$url" --token "$token" "$dir/base.json" --run-id base --commit base >/dev/null
"$server" post --url "$url" --token "$token" "$dir/cont.json" --run-id contender --commit contender >/dev/null
curl -fsS "$url/api/v1/compare?base=base&contender=contender" >"$dir/compare.json"
[ -z "$out" ] || cp "$dir/compare.json" "$out"
python3 - "$dir/compare.json" <<'PY'
import collections, json, sys
c = json.load(open(sys.argv[1]))
rows = c["benchmarks"]
verdicts = collections.Counter(r["verdict"] for r in rows)
with_p = [r for r in rows if r.get("p_value") is not None]
different = [r for r in rows if r["verdict"] in ("slower", "faster")]
print(f"{len(rows)} benchmarks compared; {len(with_p)} with a p-value ({100 * len(with_p) / max(len(rows), 1):.1f}%); "
      f"different: {len(different)} ({100 * len(different) / max(len(with_p), 1):.1f}% of those); verdicts {dict(verdicts)}; "
      f"geomean delta {c['geomean_delta_pct']:.3f}%")
for r in different:
    print(f"  {r['benchmark']}: {r['delta_pct']:+.2f}% p={r['p_value']:.2g}")
PY
