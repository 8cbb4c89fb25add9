#!/usr/bin/env python3
"""What shaderwatch says, written to a directory, for a change that must not alter it (a refactor):
take one snapshot before and one after, then `diff -r BEFORE AFTER` must print nothing.

- check.txt: `shaderwatch-bench --check --seed 7` on the default device (stdout: the table and tally);
- api/*.json: a fresh results server's answers for the real runs in tests/server/fixtures/real, posted in
  a fixed order (keys sorted; times of receipt and the server's own clock removed);
- reports/: each of those runs' JUnit XML, markdown summary and CSV as served;
- fleet.json: the fleet simulation's rows (verdicts, alerts, attribution), its timings removed.

Usage: ci/behaviour_snapshot.py BUILD_DIR OUT_DIR [--quick]   (--quick: 1 fleet trial instead of 3)
"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "server", "fixtures", "real")
# (file, run id, commit, started_at): two H200 processes of one commit, its H100, a partial 16K run, then
# the H200 and H100 runs of a later commit.
RUNS = [
    ("h200-50e20fd-a.json.gz", "h200-a", "50e20fd", "2026-11-20T00:00:00Z"),
    ("h200-50e20fd-b.json.gz", "h200-b", "50e20fd", "2026-11-20T01:00:00Z"),
    ("h200-50e20fd-lum16k.json.gz", "h200-16k", "50e20fd", "2026-11-20T02:00:00Z"),
    ("h200-run1.json", "h200-old-1", "bf808c9", "2026-11-10T00:00:00Z"),
    ("h100-run1.json", "h100-old-1", "bf808c9", "2026-11-10T00:30:00Z"),
    ("h200-1a5ab89.json.gz", "h200-new", "1a5ab89", "2026-11-25T03:40:00Z"),
    ("h100-1a5ab89.json.gz", "h100-new", "1a5ab89", "2026-11-25T03:45:00Z"),
]
# Fields that say when the server received or changed something, or how long it took: not behaviour.
VOLATILE = {"received_at", "created_at", "updated_at", "ingest_ms", "elapsed_ms", "ingest_s", "seconds",
            "ingest_time_ms", "wall_s", "now"}


def scrub(value):
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in sorted(value.items()) if k not in VOLATILE and not k.startswith("ingest_ms")}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(scrub(value), f, indent=1, sort_keys=True)
        f.write("\n")


def api_snapshot(server_bin, out):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "sw.db")
        log = open(os.path.join(tmp, "server.log"), "w+")
        server = subprocess.Popen([server_bin, "serve", "--db", db, "--port", "0"], stdout=log, stderr=subprocess.STDOUT)
        try:
            url = None
            for _ in range(200):
                log.seek(0)
                m = re.search(r"http://127\.0\.0\.1:\d+", log.read())
                if m:
                    url = m.group(0)
                    break
                time.sleep(0.05)
            if not url:
                sys.exit("behaviour_snapshot: the server did not start")
            token = subprocess.run([server_bin, "token", "create", "snapshot", "--db", db], capture_output=True,
                                   text=True, check=True).stdout.strip()
            for name, run_id, commit, started in RUNS:
                path = os.path.join(FIXTURES, name)
                if name.endswith(".gz"):
                    plain = os.path.join(tmp, name[:-3])
                    with gzip.open(path) as src, open(plain, "wb") as dst:
                        dst.write(src.read())
                    path = plain
                subprocess.run([server_bin, "post", path, "--url", url, "--token", token, "--run-id", run_id,
                                "--commit", commit, "--started-at", started, "--runner", "snapshot"],
                               check=True, capture_output=True)

            def get(path):
                with urllib.request.urlopen(url + "/api/v1/" + path) as r:
                    return json.load(r)

            answers = {"summary": "summary", "gpus": "gpus", "drivers": "drivers", "runs": "runs",
                       "alerts": "alerts?limit=500", "correctness": "correctness", "vocabulary": "vocabulary",
                       "compare-h200": "compare?base=h200-a&contender=h200-b"}
            for _, run_id, commit, _ in RUNS:
                answers[f"run-{run_id}"] = f"runs/{run_id}"
                answers[f"verdict-{run_id}"] = f"runs/{run_id}/verdict"
            for commit in sorted({r[2] for r in RUNS}):
                answers[f"rankings-{commit}"] = f"rankings?commit={commit}"
            for name, path in answers.items():
                write_json(os.path.join(out, "api", name + ".json"), get(path))
            # The reports CI reads, as served (text).
            os.makedirs(os.path.join(out, "reports"), exist_ok=True)
            for _, run_id, _, _ in RUNS:
                for report in ("junit.xml", "summary.md", "results.csv"):
                    # A fixed dashboard base: the links would otherwise name the server's port.
                    with urllib.request.urlopen(f"{url}/api/v1/runs/{run_id}/{report}?dashboard=https://dash.example") as r:
                        with open(os.path.join(out, "reports", f"{run_id}-{report}"), "wb") as f:
                            f.write(r.read())
            for s in get("series?benchmark=" + urllib.parse.quote("lum/subgroup_add_256/1920x1080/hot"))["series"]:
                write_json(os.path.join(out, "api", f"series-{s['gpu']['name'].replace(' ', '_')}.json"),
                           get(f"series/{s['id']}"))
        finally:
            server.terminate()
            server.wait()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, out = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    check = subprocess.run([os.path.join(build, "harness", "shaderwatch-bench"), "--check", "--seed", "7"],
                           capture_output=True, text=True)
    with open(os.path.join(out, "check.txt"), "w") as f:
        f.write(check.stdout + f"exit {check.returncode}\n")
    api_snapshot(os.path.join(build, "server", "shaderwatch-server"), out)
    fleet = os.path.join(out, "fleet-raw.json")
    subprocess.run([os.path.join(build, "server", "shaderwatch-fleet-sim"), "--trials", "1" if quick else "3",
                    "--runs", "30", "--json", fleet], check=True, capture_output=True)
    with open(fleet) as f:
        rows = json.load(f)
    os.remove(fleet)
    write_json(os.path.join(out, "fleet.json"), rows)
    print(f"behaviour_snapshot: {out}: check.txt, {len(os.listdir(os.path.join(out, 'api')))} API answers, "
          f"{len(os.listdir(os.path.join(out, 'reports')))} reports, fleet.json")


if __name__ == "__main__":
    main()
