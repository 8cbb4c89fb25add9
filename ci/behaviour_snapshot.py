#!/usr/bin/env python3
"""What shaderwatch says, written to a directory, for a change that must not alter it (a refactor):
take one snapshot before and one after, then `diff -r BEFORE AFTER` must print nothing.

- check.txt: `shaderwatch-bench --check --seed 7` on the default device (stdout: the table and tally);
- api/*.json: a fresh results server's answers for the real runs in tests/server/fixtures/real, posted in
  a fixed order (keys sorted; times of receipt and the server's own clock removed): the reads, each run's pages
  of results, and the writes: POST answers (a stored run, a repeat, bodies the server must refuse) and PATCH
  answers (an alert's triage, a refused state);
- reports/: each of those runs' JUnit XML, markdown summary and CSV as served;
- fleet.json: the fleet simulation's rows (verdicts, alerts, attribution), its timings removed.

Usage: ci/behaviour_snapshot.py BUILD_DIR OUT_DIR [--quick] [--postgres]
  --quick: 1 fleet trial instead of 3. --postgres: the server's database in PostgreSQL, a new database of the
  cluster tests/server/with_postgres.sh started (SW_TEST_POSTGRES_SOCKET), instead of an SQLite file.
"""
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
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
# The benchmark the snapshot's slow commit makes twice as slow.
SLOWED = "lum/subgroup_add_256/1920x1080/"
# Fields that say when the server received or changed something, or how long it took: not behaviour.
VOLATILE = {"received_at", "created_at", "updated_at", "ingest_ms", "elapsed_ms", "ingest_s", "seconds",
            "ingest_time_ms", "wall_s", "now"}


def scrub(value):
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in sorted(value.items()) if k not in VOLATILE and not k.startswith("ingest_ms")}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, str):  # links name the server's port, a new one each time
        return re.sub(r"http://127\.0\.0\.1:\d+", "http://server", value)
    return value


def write_json(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(scrub(value), f, indent=1, sort_keys=True)
        f.write("\n")


def postgres_database():
    """A new database of the with_postgres.sh cluster, as --db takes it."""
    socket = os.environ.get("SW_TEST_POSTGRES_SOCKET")
    if not socket:
        sys.exit("behaviour_snapshot: --postgres runs under tests/server/with_postgres.sh (SW_TEST_POSTGRES_SOCKET)")
    name = f"snapshot_{os.getpid()}_{int(time.time())}"
    bindir = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
    subprocess.run([os.path.join(bindir, "createdb"), "-h", socket, "-U", "sw", name], check=True)
    return f"postgresql://sw@{urllib.parse.quote(socket, safe='')}/{name}"


def request(url, method, path, token, body=None):
    """(status, answer as JSON) of one API request, an error answer included."""
    data = body.encode() if isinstance(body, str) else None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + "/api/v1/" + path, data=data, method=method,
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def write_snapshot(server_bin, url, db, out):
    """The writes (POST, PATCH) and their answers, after the fixtures are stored."""
    upload = subprocess.run([server_bin, "token", "create", "snapshot-upload", "--db", db], capture_output=True,
                            text=True, check=True).stdout.strip()
    triage = re.search(r"swt_[0-9a-f]+", subprocess.run(
        [server_bin, "token", "create", "snapshot-triage", "--scope", "triage", "--db", db], capture_output=True,
        text=True, check=True).stdout).group(0)
    with gzip.open(os.path.join(FIXTURES, RUNS[0][0])) as f:
        document = json.load(f)
    run = {"id": "posted-1", "commit": "50e20fd", "runner": "snapshot", "started_at": "2026-11-20T05:00:00Z"}
    posts = {
        "stored": {"run": run, "benchmark": document},
        "repeat": {"run": run, "benchmark": document},
        "unknown-top-level-field": {"run": run, "benchmark": document, "extra": 1},
        "no-run": {"benchmark": document},
        "run-not-an-object": {"run": [1], "benchmark": document},
        "bad-run-id": {"run": {**run, "id": "has space"}, "benchmark": document},
        "unknown-run-field": {"run": {**run, "id": "posted-2", "colour": "red"}, "benchmark": document},
        "commit-with-space": {"run": {**run, "id": "posted-3", "commit": "a b"}, "benchmark": document},
        "no-start-no-date": {"run": {k: v for k, v in run.items() if k != "started_at"} | {"id": "posted-4"},
                             "benchmark": {**document, "context": {k: v for k, v in document["context"].items()
                                                                    if k != "date"}}},
        "bad-start": {"run": {**run, "id": "posted-5", "started_at": "yesterday"}, "benchmark": document},
        "benchmark-not-an-object": {"run": {**run, "id": "posted-6"}, "benchmark": "results.json"},
        "not-json": "{\"run\": ",
    }
    for name, body in posts.items():
        status, answer = request(url, "POST", "runs", upload, body)
        write_json(os.path.join(out, "api", f"post-{name}.json"), {"status": status, "answer": answer})
    # A commit that makes one kernel twice as slow, on main, its SPIR-V changed: the gate's regression alert is
    # what PATCH triages.
    slow = json.loads(json.dumps(document))
    for row in slow["benchmarks"]:
        if row.get("run_name", row["name"]).startswith(SLOWED):
            for key in list(row):
                if key in ("real_time", "cpu_time") or (key.endswith("_us") and isinstance(row[key], (int, float))):
                    row[key] *= 2
            row["label"] = re.sub(r"spirv:\S+", "spirv:5104", row.get("label", ""))
    kernel = "/".join(SLOWED.split("/")[:2])
    if kernel in slow.get("sw_compiled", {}):
        slow["sw_compiled"][kernel]["spirv"] = "5104"
    status, answer = request(url, "POST", "runs", upload, {"run": {**run, "id": "posted-slow", "commit": "slow2x",
                                                                   "started_at": "2026-11-20T06:00:00Z"},
                                                           "benchmark": slow})
    write_json(os.path.join(out, "api", "post-slow.json"), {"status": status, "answer": answer})
    write_json(os.path.join(out, "api", "verdict-posted-slow.json"), request(url, "GET", "runs/posted-slow/verdict", triage)[1])
    alerts = request(url, "GET", "alerts?limit=500", triage)[1]["alerts"]
    write_json(os.path.join(out, "api", "alerts-after-slow.json"), alerts)
    if alerts:
        first = alerts[0]["id"]
        for name, body in (("acknowledged", {"state": "acknowledged", "note": "snapshot: looked at"}),
                           ("bad-state", {"state": "gone"}), ("unknown-field", {"colour": "red"})):
            status, answer = request(url, "PATCH", f"alerts/{first}", triage, body)
            write_json(os.path.join(out, "api", f"patch-{name}.json"), {"status": status, "answer": answer})
        write_json(os.path.join(out, "api", "alert-after-patch.json"), request(url, "GET", f"alerts/{first}", triage)[1])
    status, answer = request(url, "PATCH", "alerts/999999", triage, {"state": "acknowledged"})
    write_json(os.path.join(out, "api", "patch-unknown-alert.json"), {"status": status, "answer": answer})


def api_snapshot(server_bin, out, postgres=False):
    with tempfile.TemporaryDirectory() as tmp:
        db = postgres_database() if postgres else os.path.join(tmp, "sw.db")
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
            # A run's results, page by page.
            for run_id in ("h200-a", "h100-new"):
                for page in ("limit=50", "limit=50&offset=50", "limit=1000&offset=100000"):
                    write_json(os.path.join(out, "api", f"results-{run_id}-{page.replace('&', '-')}.json"),
                               get(f"runs/{run_id}/results?{page}"))
            write_snapshot(server_bin, url, db, out)
        finally:
            server.terminate()
            server.wait()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, out = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv[3:]
    postgres = "--postgres" in sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    check = subprocess.run([os.path.join(build, "harness", "shaderwatch-bench"), "--check", "--seed", "7"],
                           capture_output=True, text=True)
    with open(os.path.join(out, "check.txt"), "w") as f:
        f.write(check.stdout + f"exit {check.returncode}\n")
    api_snapshot(os.path.join(build, "server", "shaderwatch-server"), out, postgres)
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
