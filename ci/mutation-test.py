#!/usr/bin/env python3
"""How sensitive shaderwatch's checks are: plausible bugs put into the kernels one at a time.

Each mutant of the catalog (ci/mutants.json: a file of kernels/, one exact text and its replacement,
the kernels it affects) is applied to a scratch copy of kernels/, and `shaderwatch-bench --check
--kernels-dir COPY --filter KERNELS` runs on the default Vulkan device (lavapipe where there is no GPU).
A mutant is killed when the check fails, survives when it passes; one that does not compile is not
counted. An equivalent mutant (marked so: it cannot change the answer beyond the error bound) must pass.
A mutant marked `equivalent_at_subgroup_size: N` (a hard-coded N where the kernel should read
gl_SubgroupSize) computes exactly what the original does on a device whose only subgroup size is N: there
it is equivalent too; elsewhere it is an ordinary mutant.

Prints one line per mutant, the survivors with the reason each survives, and the score. Exit status:
0 when every compiled, non-equivalent mutant is killed or has a recorded reason to survive and no
equivalent mutant fails; 1 otherwise; 2 for bad usage, a catalog error or a mutant that does not apply.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUMMARY = re.compile(r"^(\d+) runs:(.*); (\d+) unexpected failures$", re.M)


def load_catalog(path):
    with open(path) as f:
        mutants = json.load(f)["mutants"]
    seen = set()
    for m in mutants:
        for key in ("id", "file", "find", "replace", "kernels", "what"):
            if not isinstance(m.get(key), str) or not m[key]:
                raise ValueError(f"{path}: mutant {m.get('id', '?')}: '{key}' must be a non-empty string")
        if m["id"] in seen:
            raise ValueError(f"{path}: mutant id {m['id']} is used twice")
        seen.add(m["id"])
        if m["find"] == m["replace"]:
            raise ValueError(f"{path}: mutant {m['id']} changes nothing")
        size = m.get("equivalent_at_subgroup_size")
        if size is not None and (not isinstance(size, int) or size < 1 or size & (size - 1)):
            raise ValueError(f"{path}: mutant {m['id']}: 'equivalent_at_subgroup_size' must be a power of two")
    return mutants


def fixed_subgroup_size(bench):
    """The default device's subgroup size where it has only one (min = max), else None."""
    p = subprocess.run([bench, "--list-devices"], capture_output=True, text=True, timeout=120)
    m = re.search(r"subgroup size \d+ \((\d+)-(\d+)\)", p.stdout)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"{bench} --list-devices gave no subgroup size (exit {p.returncode}): {p.stderr.strip()}")
    return int(m.group(1)) if m.group(1) == m.group(2) else None


def equivalent_here(mutant, subgroup_size):
    return bool(mutant.get("equivalent")) or (
        subgroup_size is not None and mutant.get("equivalent_at_subgroup_size") == subgroup_size)


def apply(mutant, kernels_dir):
    path = os.path.join(kernels_dir, mutant["file"])
    with open(path) as f:
        text = f.read()
    n = text.count(mutant["find"])
    if n != 1:
        raise ValueError(f"mutant {mutant['id']}: its text occurs {n} times in kernels/{mutant['file']}, not once")
    with open(path, "w") as f:
        f.write(text.replace(mutant["find"], mutant["replace"]))


def run_check(bench, kernels_dir, mutant, seed, timeout, repeat, race):
    """(result, detail): killed, survived, no-compile or error."""
    cmd = [bench, "--check", "--kernels-dir", kernels_dir, "--filter", mutant["kernels"], "--seed", str(seed),
           "--repeat", str(repeat)] + (["--race"] if race else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "killed", f"the check did not finish in {timeout} s (a hang)"
    out = p.stdout + p.stderr
    summary = SUMMARY.search(out)
    if "does not compile" in out:  # shaderwatch-bench's message for a glslang error
        return "no-compile", next((l.strip() for l in out.splitlines() if "does not compile" in l), "")[:160]
    if not summary:
        last = out.strip().splitlines()[-1][:160] if out.strip() else ""
        return "error", f"exit {p.returncode}: {last}"
    if summary.group(1) == "0":
        return "error", f"its kernels pattern {mutant['kernels']!r} ran no check"
    if p.returncode == 1 and int(summary.group(3)) > 0:
        case = next((l.split(": ", 1)[1] for l in out.splitlines() if re.match(r"^(FAIL|IMPROBABLE|ERROR): kernel ", l)), "")
        first = next((l.strip() for l in out.splitlines() if l.startswith("  first wrong:")), "")
        return "killed", (f"{summary.group(3)} of {summary.group(1)} runs failed" + (f", first {case}" if case else "")
                          + (f"; {first}" if first else ""))
    if p.returncode == 0:
        return "survived", f"{summary.group(1)} runs passed"
    return "error", f"exit {p.returncode}: {summary.group(0)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--quick", action="store_true", help="only the mutants marked quick (the CI subset)")
    ap.add_argument("--only", action="append", default=[], metavar="ID", help="only this mutant (repeatable)")
    ap.add_argument("--catalog", default=os.path.join(ROOT, "ci", "mutants.json"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (default: build/)")
    ap.add_argument("--seed", type=int, default=20261121, help="inputs' seed for every check")
    ap.add_argument("--timeout", type=int, default=300, help="seconds a mutant's check may take")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each check case (shaderwatch-bench --check --repeat): a race may show on some")
    ap.add_argument("--race", action="store_true",
                    help="check with race delays (shaderwatch-bench --check --race): on a GPU, missing barriers show")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    a = ap.parse_args()
    try:
        mutants = load_catalog(a.catalog)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        print(f"mutation-test: {e}", file=sys.stderr)
        return 2
    unknown = [i for i in a.only if i not in {m["id"] for m in mutants}]
    if unknown:
        print(f"mutation-test: no mutant {', '.join(unknown)} in {a.catalog}", file=sys.stderr)
        return 2
    chosen = [m for m in mutants if (not a.quick or m.get("quick")) and (not a.only or m["id"] in a.only)]
    if a.list:
        for m in chosen:
            print(f"{m['id']:<36} {m['file']:<26} {'equivalent' if m.get('equivalent') else ''}  {m['what']}")
        return 0
    bench = os.path.join(a.build, "harness", "shaderwatch-bench")
    if not os.access(bench, os.X_OK):
        print(f"mutation-test: no {bench}: build it first (cmake --build {a.build} --target shaderwatch-bench)",
              file=sys.stderr)
        return 2
    try:
        subgroup_size = fixed_subgroup_size(bench)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"mutation-test: {e}", file=sys.stderr)
        return 2
    print(f"default device's subgroup size: {subgroup_size or 'variable'}", flush=True)
    results = []
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="sw-mutant.") as tmp:
        for n, m in enumerate(chosen, 1):
            kernels_dir = os.path.join(tmp, m["id"])
            shutil.copytree(os.path.join(ROOT, "kernels"), kernels_dir)
            try:
                apply(m, kernels_dir)
            except ValueError as e:
                print(f"mutation-test: {e}", file=sys.stderr)
                return 2
            t = time.time()
            result, detail = run_check(bench, kernels_dir, m, a.seed, a.timeout, a.repeat, a.race)
            shutil.rmtree(kernels_dir)
            if equivalent_here(m, subgroup_size):
                here = "" if m.get("equivalent") else f" at subgroup size {subgroup_size}"
                verdict = f"ok (equivalent{here}, passes)" if result == "survived" else f"FALSE ALARM ({result})"
            elif result == "survived":
                verdict = "survived (known: see below)" if m.get("survives") else "SURVIVED"
            else:
                verdict = result
            results.append((m, result, verdict, detail))
            print(f"[{n}/{len(chosen)}] {m['id']:<36} {verdict:<28} {time.time() - t:5.1f} s  {detail}", flush=True)

    counted = [(m, r) for m, r, _, _ in results if not equivalent_here(m, subgroup_size) and r != "no-compile"]
    killed = sum(1 for _, r in counted if r == "killed")
    survivors = [(m, d) for m, r, _, d in results if not equivalent_here(m, subgroup_size) and r == "survived"]
    false_alarms = [m for m, r, _, _ in results if equivalent_here(m, subgroup_size) and r != "survived"]
    errors = [m for m, r, _, _ in results if r == "error"]
    no_compile = [m for m, r, _, _ in results if r == "no-compile"]
    if survivors:
        print("\nSurvivors (the bug passes the checks on this device):")
        for m, _ in survivors:
            print(f"  {m['id']}: {m['what']}\n    why: {m.get('survives', 'NO REASON RECORDED: a gap in the checks')}")
    if no_compile:
        print("\nDid not compile (not counted): " + ", ".join(m["id"] for m in no_compile))
    equivalents = sum(1 for m, *_ in results if equivalent_here(m, subgroup_size))
    print(f"\nscore: {killed} of {len(counted)} compiled mutants killed"
          f" ({100.0 * killed / len(counted) if counted else 0:.0f}%); {len(survivors)} survived"
          f" ({sum(1 for m, _ in survivors if m.get('survives'))} with a recorded reason);"
          f" {equivalents - len(false_alarms)} of {equivalents} equivalent mutants pass;"
          f" {time.time() - start:.0f} s")
    unexplained = [m for m, _ in survivors if not m.get("survives")]
    if unexplained or false_alarms or errors:
        for m in unexplained:
            print(f"mutation-test: {m['id']} survived with no recorded reason", file=sys.stderr)
        for m in false_alarms:
            print(f"mutation-test: equivalent mutant {m['id']} failed the check (a false alarm)", file=sys.stderr)
        for m in errors:
            print(f"mutation-test: {m['id']}: the check could not be run", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
