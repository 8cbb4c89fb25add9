#!/usr/bin/env python3
"""ci/bisect.py on lavapipe, end to end: a scratch repository of 30 commits after a base, one of which runs
the grid-stride luminance sum PASSES times (a redundant loop: the same answer, several times the time); a real
shaderwatch-server holds a regression alert whose runs name only the base and the last commit. The bisect
must name that commit and write it into the alert's note. First, the same bisect with a stand-in bench whose
machine slows 4% with every run (5x over the bisect) must name it too: the ends are measured beside each
commit, so a drift moves them all alike; with one whose machine is busy every third run; and with one whose
machine is busy while the named commit's parent is first measured again (on the wrong side: measured again with
twice the runs, it is good).

Usage: bisect_test.py BUILD_DIR (with shaderwatch-bench and shaderwatch-server built)
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCHMARK = 'lum/grid_stride_vec4/1920x1080/hot'
COMMITS, SLOW_AT = 30, 19  # commits after the base; the one (1-based) that brings the redundant loop
# The redundant loop's passes. Three cost only 1.47-2.2x on a 2-core VM's lavapipe, six 2.0-2.6x, and six measured
# 1.53x while the VM also built the project: under the 1.58x the bisect asks of a 2.5x alert's ends.
PASSES = 12
SLOW_MARK = 'float passes['  # what the stand-in benches look for in the shader


def fail(msg):
    print(f'FAIL: {msg}', flush=True)
    sys.exit(1)


def sh(*cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def redundant_loop(shader):
    """The grid-stride accumulation run PASSES times, the least of them kept: the same sum bit for bit (the compiler
    cannot know the passes agree, so it keeps them all), PASSES times the reads."""
    start, end = shader.index('  uint i = gl_WorkGroupID.x'), shader.index('  const float total')
    body = ''.join('  ' + line + '\n' for line in shader[start:end].splitlines())
    return (shader[:start] + f'  {SLOW_MARK}{PASSES}];\n  for (uint pass = 0; pass < {PASSES}; ++pass) {{\n' + body +
            '    passes[pass] = acc;\n  }\n  float least = passes[0];\n'
            f'  for (uint pass = 1; pass < {PASSES}; ++pass) least = min(least, passes[pass]);\n'
            '  const float acc = least;\n' + shader[end:])


def make_repo(root):
    """Base: a copy of kernels/; then 30 commits of shader comments, one of them the slow loop."""
    shutil.copytree(os.path.join(SOURCE, 'kernels'), os.path.join(root, 'kernels'))
    sh('git', 'init', '--quiet', '--initial-branch=main', cwd=root)
    for k, v in (('user.name', 'bisect test'), ('user.email', 'bisect@test'), ('commit.gpgsign', 'false')):
        sh('git', 'config', k, v, cwd=root)
    sh('git', 'add', '-A', cwd=root)
    sh('git', 'commit', '--quiet', '-m', 'base', cwd=root)
    commits = [sh('git', 'rev-parse', 'HEAD', cwd=root)]
    for n in range(1, COMMITS + 1):
        if n == SLOW_AT:
            path = os.path.join(root, 'kernels', 'lum_grid_stride.comp')
            with open(path) as f:
                slow = redundant_loop(f.read())
            with open(path, 'w') as f:
                f.write(slow)
            message = f'lum_grid_stride: sum every pixel {PASSES} times'
        else:
            with open(os.path.join(root, 'kernels', 'postfx.glsl'), 'a') as f:
                f.write(f'// note {n}\n')
            message = f'postfx: note {n}'
        sh('git', 'commit', '--quiet', '-am', message, cwd=root)
        commits.append(sh('git', 'rev-parse', 'HEAD', cwd=root))
    return commits


def start_server(build, root):
    server = os.path.join(build, 'server', 'shaderwatch-server')
    db = os.path.join(root, 'results.db')
    proc = subprocess.Popen([server, 'serve', '--db', db, '--port', '0', '--bind', '127.0.0.1'],
                            stdout=subprocess.PIPE, text=True)
    m, said = None, []
    while not m and len(said) < 50:
        said.append(proc.stdout.readline())
        m = re.search(r'listening on (http://\S+)', said[-1])
        if not said[-1]:
            break
    if not m:
        proc.kill()
        fail(f'the server did not start: {"".join(said)!r}')
    out = sh(server, 'token', 'create', 'bisect-test', '--scope', 'triage', '--db', db)
    token = re.search(r'swt_[0-9a-f]+', out).group(0)
    admin = re.search(r'swt_[0-9a-f]+', sh(server, 'token', 'create', 'poster', '--scope', 'upload', '--db', db)).group(0)
    return proc, m.group(1), token, admin


def api(url, token, method='GET', body=None):
    req = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={'Authorization': f'Bearer {token}', 'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def make_pack_repo(root):
    """A team's repository holding a kernel pack (example_glsl), no shaderwatch source: 30 commits, one of them the
    box filter's slowdown (a marker the stand-in bench reads), the others notes in another kernel's shader."""
    pack = os.path.join(root, 'packs', 'team')
    shutil.copytree(os.path.join(SOURCE, 'kernels', 'packs', 'example_glsl'), pack)
    sh('git', 'init', '--quiet', '--initial-branch=main', cwd=root)
    for k, v in (('user.name', 'bisect test'), ('user.email', 'bisect@test'), ('commit.gpgsign', 'false')):
        sh('git', 'config', k, v, cwd=root)
    sh('git', 'add', '-A', cwd=root)
    sh('git', 'commit', '--quiet', '-m', 'base', cwd=root)
    commits = [sh('git', 'rev-parse', 'HEAD', cwd=root)]
    for n in range(1, COMMITS + 1):
        name = 'box3.comp' if n == SLOW_AT else 'tonemap.comp'
        with open(os.path.join(pack, name), 'a') as f:
            f.write('// SLOW\n' if n == SLOW_AT else f'// note {n}\n')
        sh('git', 'commit', '--quiet', '-am', f'{name}: change {n}', cwd=root)
        commits.append(sh('git', 'rev-parse', 'HEAD', cwd=root))
    return commits


def post_history(url, token, good, bad, benchmark=BENCHMARK, prefix='ci'):
    """What CI posted: 20 runs at the base, then 6 after one push of all 30 commits, 2.5x as slow."""
    for i in range(26):
        level = 10e6 if i < 20 else 25e6
        reps = [level * (1 + 0.004 * ((i * 7 + k * 3) % 5 - 2)) for k in range(3)]
        rows = [{'name': benchmark, 'run_name': benchmark, 'run_type': 'iteration', 'repetitions': 3,
                 'repetition_index': k, 'threads': 1, 'iterations': 1, 'real_time': v, 'cpu_time': v,
                 'time_unit': 'ns'} for k, v in enumerate(reps)]
        doc = {'context': {'date': '2026-11-26T00:00:00+00:00', 'sw_device_name': 'llvmpipe (LLVM 15.0.6, 256 bits)',
                           'sw_vendor_id': '0x10005', 'sw_device_id': '0x0', 'sw_driver_name': 'llvmpipe',
                           'sw_driver_version': '22.3.6'}, 'benchmarks': rows}
        run = {'id': f'{prefix}-{i}', 'commit': good if i < 20 else bad, 'branch': 'main', 'runner': 'ci-box',
               'started_at': f'2026-11-26T{i // 60:02d}:{i % 60:02d}:00Z'}
        api(f'{url}/api/v1/runs', token, 'POST', {'run': run, 'benchmark': doc})
    alerts = api(f'{url}/api/v1/alerts?kind=regression&benchmark={benchmark}', token)['alerts']
    if len(alerts) != 1:
        fail(f'expected one regression alert, got {len(alerts)}')
    a = alerts[0]
    if (a['attribution']['commit_before'], a['attribution']['commit_after']) != (good, bad):
        fail(f'the alert spans {a["attribution"]["commit_before"]}..{a["attribution"]["commit_after"]}')
    return a['id']


def machine_bench(about, slowdown):
    """A stand-in shaderwatch-bench whose machine's speed depends on its runs so far: 10 ms, or 25 ms where the kernels
    sum the image PASSES times, times `slowdown` (a Python expression of `runs`)."""
    return f"""#!/usr/bin/env python3
# A stand-in shaderwatch-bench on a machine {about}.
import json, os, sys
args = dict(a.split('=', 1) if '=' in a else (a, '') for a in sys.argv[1:])
kernels = sys.argv[sys.argv.index('--kernels-dir') + 1]
with open(os.path.join(kernels, 'lum_grid_stride.comp')) as f:
    level = 25e3 if SLOW_MARK in f.read() else 10e3
count = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'runs')
runs = int(open(count).read()) if os.path.exists(count) else 0
open(count, 'w').write(str(runs + 1))
rows = [{{'name': NAME, 'run_name': NAME, 'run_type': 'iteration', 'real_time': level * ({slowdown}) * (1 + d),
         'time_unit': 'us'}} for d in (-0.01, 0, 0.01)]
json.dump({{'benchmarks': rows}}, open(args['--benchmark_out'], 'w'))
"""


DRIFTING_BENCH = machine_bench('that slows 4% with each run', '1.04 ** runs')
# A bisect whose rounds always ran the ends and the commit in one order would see one of them slowed in every round
# of a step.
BUSY_EVERY_THIRD_RUN_BENCH = machine_bench("that a neighbour's job makes 2.2x as slow for every third run",
                                           '2.2 if runs % 3 == 2 else 1')


BUSY_WHILE_CONFIRMING_BENCH = """#!/usr/bin/env python3
# A stand-in shaderwatch-bench on a machine busy just while the named commit's parent is first measured again:
# 10 ms, or 25 ms where the kernels sum the image PASSES times; the parent's first 6 runs (the confirmation's first
# round at --runs 3) read 22 ms, 86% of the way to the bad level in log time: on the wrong side.
import json, os, sys
args = dict(a.split('=', 1) if '=' in a else (a, '') for a in sys.argv[1:])
kernels = sys.argv[sys.argv.index('--kernels-dir') + 1]
with open(os.path.join(kernels, 'lum_grid_stride.comp')) as f:
    level = 25e3 if SLOW_MARK in f.read() else 10e3
if os.path.basename(os.path.dirname(kernels)) == 'parent':
    count = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'parent-runs')
    runs = int(open(count).read()) if os.path.exists(count) else 0
    open(count, 'w').write(str(runs + 1))
    level = 22e3 if runs < 6 else level
rows = [{'name': NAME, 'run_name': NAME, 'run_type': 'iteration', 'real_time': level * (1 + d), 'time_unit': 'us'}
        for d in (-0.01, 0, 0.01)]
json.dump({'benchmarks': rows}, open(args['--benchmark_out'], 'w'))
"""


PACK_BENCH = """#!/usr/bin/env python3
# A stand-in shaderwatch-bench for a team's pack: 10 ms, or 25 ms where the pack given with --pack has the box
# filter's slowdown; an error where the bench is given no pack, or kernels/ of its own.
import json, os, sys
args = dict(a.split('=', 1) if '=' in a else (a, '') for a in sys.argv[1:])
if '--kernels-dir' in sys.argv or '--pack' not in sys.argv:
    sys.exit('the pack bench wants --pack and no --kernels-dir: ' + ' '.join(sys.argv[1:]))
pack = sys.argv[sys.argv.index('--pack') + 1]
with open(os.path.join(pack, 'box3.comp')) as f:
    level = 25e3 if 'SLOW' in f.read() else 10e3
rows = [{'name': NAME, 'run_name': NAME, 'run_type': 'iteration', 'real_time': level * (1 + d), 'time_unit': 'us'}
        for d in (-0.01, 0, 0.01)]
json.dump({'benchmarks': rows}, open(args['--benchmark_out'], 'w'))
"""


def stand_in_bench(root, name, script, benchmark=BENCHMARK):
    path = os.path.join(root, name, 'shaderwatch-bench')
    os.makedirs(os.path.dirname(path))
    with open(path, 'w') as f:
        f.write(script.replace('NAME', repr(benchmark)).replace('SLOW_MARK', repr(SLOW_MARK)))
    os.chmod(path, 0o755)
    return path


def bisect(target, repo, bench, token, *more):
    """ci/bisect.py on `target`: an alert's URL, or a run and benchmark as the failing outputs print them."""
    started = time.monotonic()
    r = subprocess.run([sys.executable, os.path.join(SOURCE, 'ci', 'bisect.py'), *target,
                        '--repo', repo, '--bench', bench, *more],
                       capture_output=True, text=True, env={**os.environ, 'SHADERWATCH_TOKEN': token})
    print(r.stdout + r.stderr, flush=True)
    print(f'bisect took {time.monotonic() - started:.0f} s', flush=True)
    return r


def named(r, culprit, what):
    """The commits tested, after checking the bisect named the culprit."""
    if r.returncode != 0:
        fail(f'{what}: bisect exited {r.returncode}')
    if f'first bad commit: {culprit}' not in r.stdout:
        fail(f'{what}: bisect did not name {culprit[:12]} (commit {SLOW_AT} of {COMMITS})')
    tested = int(re.search(r'^(\d+) commits tested of 30', r.stdout, re.M).group(1))
    if tested > 8:
        fail(f'{what}: {tested} commits tested: a bisect of 30 needs about 5')
    return tested


def main():
    build = os.path.abspath(sys.argv[1])
    root = tempfile.mkdtemp(prefix='sw-bisect-test-')
    proc = None
    try:
        repo = os.path.join(root, 'repo')
        os.mkdir(repo)
        commits = make_repo(repo)
        proc, url, token, poster = start_server(build, root)
        alert_id = post_history(url, poster, commits[0], commits[-1])
        culprit = commits[SLOW_AT]
        # From the failed run, as its verdict's explanation prints the command (the alert's commits either side).
        explained = [e for e in api(f'{url}/api/v1/runs/ci-25/verdict', token)['explanations'] if e['benchmark'] == BENCHMARK]
        if not explained or not (explained[0]['next'] or {}).get('bisect'):
            fail(f'the failed run\'s verdict gives no bisect command for {BENCHMARK}: {explained}')
        command = shlex.split(explained[0]['next']['bisect'])
        if command[0] != 'ci/bisect.py':
            fail(f'the bisect command is not ci/bisect.py: {command}')
        named(bisect(command[1:], repo, stand_in_bench(root, 'drifting', DRIFTING_BENCH), token), culprit,
              'from the failed run on a drifting machine')
        # A neighbour's job every third run: each round starts one version further on, so no version is slowed in
        # every round (in one fixed order the bad end was, in every step, and every commit was skipped).
        busy = stand_in_bench(root, 'busy-every-third-run', BUSY_EVERY_THIRD_RUN_BENCH)
        named(bisect(command[1:], repo, busy, token), culprit, 'from the failed run on a machine busy every third run')
        # A confirmation whose parent reads on the wrong side is measured again with twice the runs (CI's 2-core
        # lavapipe, busy for a minute, put a parent at 0.334 of the way once and at 0.72 another time, and the
        # bisect gave up).
        r = bisect(command[1:], repo, stand_in_bench(root, 'busy-while-confirming', BUSY_WHILE_CONFIRMING_BENCH), token)
        named(r, culprit, 'on a machine busy while the parent is measured again')
        if len(re.findall(rf'^  {culprit[:12]}\^: ', r.stdout, re.M)) != 2:
            fail('the parent on the wrong side was not measured a second time')
        tested = named(bisect([f'{url}/#/alerts?id={alert_id}'], repo, os.path.join(build, 'harness', 'shaderwatch-bench'), token,
                              '--bench-args', '--quick --seed 1', '--post-note'), culprit, 'on lavapipe')
        note = api(f'{url}/api/v1/alerts/{alert_id}', token)['note'] or ''
        if culprit[:12] not in note:
            fail(f'the alert\'s note does not name the commit: {note!r}')
        if subprocess.run(['git', '-C', repo, 'worktree', 'list'], capture_output=True, text=True).stdout.count('\n') != 1:
            fail('the bisect left a worktree behind')
        # A team's repository of a kernel pack: each commit's pack is run with --pack (one bench, nothing built).
        team = os.path.join(root, 'team')
        os.mkdir(team)
        pack_commits = make_pack_repo(team)
        box = 'example_glsl/box3_shared/1920x1080/hot'
        pack_alert = post_history(url, poster, pack_commits[0], pack_commits[-1], box, 'team')
        r = bisect([f'{url}/#/alerts?id={pack_alert}'], team, stand_in_bench(root, 'pack', PACK_BENCH, box), token,
                   '--pack', 'packs/team')
        named(r, pack_commits[SLOW_AT], 'a team\'s pack')
        if 'its packs through --pack' not in r.stdout + r.stderr:
            fail('the pack bisect did not say it runs each commit\'s pack')
        print(f'PASS: named {culprit[:12]} after {tested} commits tested; note: {note}')
    finally:
        if proc:
            proc.terminate()
            proc.wait()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == '__main__':
    main()
