"""Short table of shaderwatch-bench JSON files: per file, benchmarks, multi-group ones, time-limit stops,
lowest SM clock and any throttle reason seen; then every multi-group benchmark with its groups."""
import json
import sys

for path in sys.argv[1:]:
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{path}: unreadable ({e})")
        continue
    rows = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "iteration" and b["name"] not in rows:
            rows[b["name"]] = b
    ok = [b for b in rows.values() if not b.get("error_occurred")]
    multi = [b for b in ok if b.get("groups", 1) > 1]
    imprecise = [b for b in ok if b.get("precise", 1) == 0]
    sm = [b["sm_mhz_min"] for b in ok if "sm_mhz_min" in b]
    thr = sorted({int(b["throttle_reasons"]) for b in ok if b.get("throttle_reasons")})
    print(f"{path}: {len(rows)} benchmarks, {len(multi)} multi-group, {len(imprecise)} not precise, "
          f"SM clock min {min(sm) if sm else 'n/a'} MHz, throttle reasons {[hex(t) for t in thr]}")
    for b in multi:
        print(f"  {b['name']}: {b['label'].split('stop:')[1]}")
