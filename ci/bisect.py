#!/usr/bin/env python3
"""Names the commit that brought an alert's change, or a failed run's slowdown: bisects between the last good
and first bad commits with `git bisect run`, measuring just that benchmark on this machine's device at each commit.

  ci/bisect.py ALERT [--repo DIR] [--bench-args ARGS] [--post-note] ...
  ci/bisect.py --run RUN --benchmark NAME --server URL [--repo DIR] ...

ALERT is the alert's dashboard URL (http://results:8080/#/alerts?id=12), its API URL
(http://results:8080/api/v1/alerts/12), or its id with --server (or SHADERWATCH_URL). A failed run (its id, or its
dashboard URL http://results:8080/#/runs/RUN) and one of the benchmarks its verdict explains bisect between the
commit it was judged against (main's, at the merge base on a branch) and the run's own: the command each failing
output (summary.md, junit.xml, the run page) prints. A token, where the server wants one for reads or for
--post-note (triage scope, alerts only), comes from SHADERWATCH_TOKEN.

How it works:
  1. The alert gives the benchmark (family/variant/size/mode) and the commits either side of its boundary.
  2. A temporary git worktree of --repo is bisected, so the checkout you work in is left alone.
  3. Where every commit in the range changes only shader sources under kernels/ or files of a --pack, one bench
     (--bench, or one built at the bad commit) runs each commit's shaders with --kernels-dir and its packs with
     --pack; otherwise each commit's bench is built incrementally in one build directory (a commit that does not
     build is skipped). A team's repository of packs, with no shaderwatch source to build, gives --bench.
  4. The good and bad ends are kept (their shaders, or their built bench) and measured in turn with every
     commit, each round starting one further on, so a machine whose speed drifts during the bisect, or that is
     busy at the same point of every round, moves all three alike. The change must reproduce first, in the
     alert's direction and at least half its size, or nothing is bisected (exit 3).
     Each commit is then called good or bad by which end's median (over the samples of --runs bench runs, taken
     beside it) its own median is nearer in log time, and skipped where it lies in the middle third even after
     twice as many runs.
  5. The commit bisect names and its parent are measured again beside the ends and must fall on their sides,
     clear of the middle third (twice the runs once more where one is not, the second measurement deciding;
     else exit 2: a wrong name is worse than none). It prints each commit tested, the first bad commit with its
     diff stat, the commits tested and the time taken; --post-note writes the result into the alert's note (its
     state unchanged).

Exit: 0 the first bad commit was named; 2 bisect could not tell (skipped commits around it); 3 the change does
not reproduce here; 4 usage (bad alert, commits not in the repository).
"""
import argparse
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

SHADER_SUFFIXES = ('.comp', '.glsl', '.vert', '.frag')
MIDDLE = (1 / 3, 2 / 3)  # of the way from the good level to the bad one (log time): too close to call


class Usage(Exception):
    pass


def log(msg):
    print(msg, flush=True)


def git(repo, *args, check=True):
    r = subprocess.run(['git', '-C', repo, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise Usage(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


# ---- the alert ----

def alert_location(alert, server):
    """(server base URL, alert id) from a dashboard URL, an API URL, or an id and --server."""
    if re.fullmatch(r'\d+', alert):
        if not server:
            raise Usage('an alert id needs --server (or SHADERWATCH_URL)')
        return server.rstrip('/'), alert
    u = urllib.parse.urlsplit(alert)
    if u.scheme not in ('http', 'https'):
        raise Usage(f'"{alert}" is neither an alert id nor an http(s) URL')
    base = f'{u.scheme}://{u.netloc}'
    m = re.search(r'/api/v1/alerts/(\d+)', u.path) or re.search(r'[?&]id=(\d+)', u.fragment or u.query)
    if not m:
        raise Usage(f'"{alert}" names no alert (expected .../api/v1/alerts/ID or .../#/alerts?id=ID)')
    return base, m.group(1)


def request(method, url, body=None):
    token = os.environ.get('SHADERWATCH_TOKEN', '')
    headers = {'Accept': 'application/json'}
    if token:
        headers['Authorization'] = f'Bearer {token}'
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers['Content-Type'] = 'application/json'
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        raise Usage(f'{method} {url}: HTTP {e.code} {e.read().decode(errors="replace")[:300]}')
    except urllib.error.URLError as e:
        raise Usage(f'{method} {url}: {e.reason}')


def read_alert(base, alert_id):
    a = request('GET', f'{base}/api/v1/alerts/{alert_id}')
    attribution = a.get('attribution') or {}
    good, bad = attribution.get('commit_before'), attribution.get('commit_after')
    if not good or not bad or good == bad:
        raise Usage(f'alert {alert_id} has no commit range to bisect (commits {good!r} -> {bad!r})')
    if a.get('before_ns') is None or a.get('after_ns') is None:
        raise Usage(f'alert {alert_id} ({a.get("kind")}) has no before and after levels: only a change in time is bisected')
    parts = a['benchmark'].split('/')
    if len(parts) < 4:
        raise Usage(f'benchmark "{a["benchmark"]}" is not family/variant/size/mode')
    return {'id': alert_id, 'benchmark': a['benchmark'], 'kernel': '/'.join(parts[:2]), 'size': parts[2],
            'good': good, 'bad': bad, 'before_ns': a['before_ns'], 'after_ns': a['after_ns'], 'state': a['state'],
            'gpu': (a.get('gpu') or {}).get('name', '?'), 'what': f'alert #{alert_id}'}


def run_location(run, server):
    """(server base URL, run id) from a run's dashboard URL (http://results:8080/#/runs/r9) or its id and --server."""
    u = urllib.parse.urlsplit(run)
    if u.scheme in ('http', 'https'):
        m = re.search(r'runs/([A-Za-z0-9._:@+-]+)', u.fragment or u.path)
        if not m:
            raise Usage(f'"{run}" names no run (expected .../#/runs/RUN)')
        return f'{u.scheme}://{u.netloc}', urllib.parse.unquote(m.group(1))
    if not server:
        raise Usage('a run id needs --server (or SHADERWATCH_URL)')
    return server.rstrip('/'), run


def read_run_finding(base, run_id, benchmark):
    """What read_alert gives, from the explanation the run's verdict gives of one benchmark."""
    v = request('GET', f'{base}/api/v1/runs/{urllib.parse.quote(run_id, safe="")}/verdict')
    found = [e for e in v.get('explanations') or [] if e.get('benchmark') == benchmark]
    if not found:
        named = sorted({e.get('benchmark') for e in v.get('explanations') or []})
        raise Usage(f'the verdict of run {run_id} explains no "{benchmark}"' +
                    (f' (it explains: {", ".join(named[:8])})' if named else ' (it names no benchmark)'))
    e = found[0]
    good, bad = e.get('good_commit'), e.get('bad_commit')
    if not good or not bad:
        raise Usage(f'run {run_id}: {benchmark} has no commit range to bisect ({e.get("evidence", "")})')
    if e.get('before_ns') is None or e.get('after_ns') is None:
        raise Usage(f'run {run_id}: {benchmark} ({e.get("finding")}) has no before and after times: only a change in time is bisected')
    parts = benchmark.split('/')
    if len(parts) < 4:
        raise Usage(f'benchmark "{benchmark}" is not family/variant/size/mode')
    return {'id': None, 'benchmark': benchmark, 'kernel': '/'.join(parts[:2]), 'size': parts[2], 'good': good, 'bad': bad,
            'before_ns': e['before_ns'], 'after_ns': e['after_ns'], 'state': None, 'gpu': 'its GPU',
            'what': f'run {run_id}\'s {e.get("finding")}'}


# ---- measuring one commit ----

def bench_samples_ns(state, version):
    """The alert's benchmark's samples (ns) from one run of a version (its bench, and its kernels/ where only
    shaders change); None where it did not run or gave a wrong answer."""
    out = os.path.join(state['scratch'], 'measure.json')
    cmd = [version['bench'], '--filter', f'^{re.escape(state["kernel"])}$', '--sizes', state['size'],
           '--benchmark_out=' + out, *shlex.split(state['bench_args'])]
    if version['kernels']:
        cmd += ['--kernels-dir', version['kernels']]
    for pack in version['packs']:
        cmd += ['--pack', pack]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(out):
        log(f'    the bench failed (exit {r.returncode}): {(r.stdout + r.stderr).strip().splitlines()[-1:]}')
        return None
    unit = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}
    with open(out) as f:
        rows = [b for b in json.load(f)['benchmarks']
                if b.get('run_name') == state['benchmark'] and b.get('run_type', 'iteration') == 'iteration']
    os.remove(out)
    if not rows or any(b.get('error_occurred') for b in rows):
        return None
    return [b['real_time'] * unit[b.get('time_unit', 'ns')] for b in rows]


def place(good_ns, bad_ns, ns):
    """How far a median lies from the good level to the bad one, in log time (0 good, 1 bad)."""
    return (math.log(ns) - math.log(good_ns)) / (math.log(bad_ns) - math.log(good_ns))


def build_bench(state):
    """This commit's bench, built incrementally; False where it does not build."""
    if not state['build_dir']:
        return True
    b = state['build_dir']
    steps = []
    if not os.path.exists(os.path.join(b, 'CMakeCache.txt')):
        steps.append(['cmake', '-S', state['worktree'], '-B', b, '-DCMAKE_BUILD_TYPE=Release',
                      '-DSHADERWATCH_SERVER=OFF', '-DSHADERWATCH_TESTS=OFF'])
    steps.append(['cmake', '--build', b, '--target', 'shaderwatch-bench', '-j', str(os.cpu_count() or 2)])
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            log(f'    does not build: {(r.stdout + r.stderr).strip().splitlines()[-1:]}')
            return False
    return True


def version_here(state):
    """The checked-out commit as something to run: its bench and, where only shaders change, its kernels/; None
    where it does not build."""
    if not build_bench(state):
        return None
    return {'bench': state['bench'],
            'kernels': os.path.join(state['worktree'], 'kernels') if state['kernels_only'] and state['shaders'] else None,
            'packs': [os.path.join(state['worktree'], p) for p in state['packs']]}


def keep_version(state, name):
    """The checked-out commit's version copied out of the worktree and build, to be measured beside later commits."""
    version = version_here(state)
    if version is None:
        return None
    keep = os.path.join(state['scratch'], name)
    os.makedirs(keep)
    if version['kernels']:
        version['kernels'] = shutil.copytree(version['kernels'], os.path.join(keep, 'kernels'))
    elif not state['kernels_only']:  # each commit's bench carries its shaders (embedded at build time)
        version['bench'] = shutil.copy2(version['bench'], os.path.join(keep, 'shaderwatch-bench'))
    # Packs are read at run time, wherever the bench was built.
    version['packs'] = [shutil.copytree(p, os.path.join(keep, 'packs', str(i), os.path.basename(p)))
                        for i, p in enumerate(version['packs'])]
    return version


def measure_in_turn(state, versions, runs):
    """Each version's median (ns) over the samples of `runs` bench runs, the versions run in turn round after
    round, so a busy or drifting machine slows them alike; None where one cannot be measured. Each round starts
    one version further on, so that each version runs in each place of a round equally often: a machine busy at
    the same point of every round (a neighbour's job of about a round's period) slows none of them alone."""
    samples = [[] for _ in versions]
    for round_no in range(runs):
        for k in range(len(versions)):
            at = (round_no + k) % len(versions)
            got = bench_samples_ns(state, versions[at])
            if got is None:
                return None
            samples[at] += got
    return [statistics.median(pooled) for pooled in samples]


def where_between_ends(state, good_ns, ns, bad_ns):
    """place() between the ends as measured beside this commit; None where those ends are less than half as far
    apart as at the start (the machine too noisy just then to call anything)."""
    if math.log(bad_ns / good_ns) / math.log(state['bad_ns'] / state['good_ns']) < 0.5:
        return None
    return place(good_ns, bad_ns, ns)


def side_of(where):
    """'good' or 'bad' where a commit's place between the ends is clear of their middle third; None where it is too
    close to call (or the ends were too close to call anything)."""
    if where is None or MIDDLE[0] <= where <= MIDDLE[1]:
        return None
    return 'good' if where < MIDDLE[0] else 'bad'


def measure_beside_ends(state, runs):
    """(good end, this commit, bad end) medians (ns), measured in turn; None where this commit cannot be measured."""
    here = version_here(state)
    return None if here is None else measure_in_turn(state, [state['good_end'], here, state['bad_end']], runs)


def step(state_file):
    """One `git bisect run` step: exit 0 good, 1 bad, 125 skip."""
    with open(state_file) as f:
        state = json.load(f)
    commit = git(state['worktree'], 'rev-parse', '--short=12', 'HEAD')
    subject = git(state['worktree'], 'log', '-1', '--format=%s')
    verdict, shown = 125, []
    for runs in (state['runs'], 2 * state['runs']):  # more runs where the first are too close to call
        levels = measure_beside_ends(state, runs)
        if levels is None:
            break
        shown.append(levels)
        side = side_of(where_between_ends(state, *levels))
        if side is not None:
            verdict = 0 if side == 'good' else 1
            break
    word = {0: 'good', 1: 'bad', 125: 'skip'}[verdict]
    times = '; '.join(f'{here / 1e3:.1f} us (ends {good / 1e3:.1f} and {bad / 1e3:.1f})'
                      for good, here, bad in shown) or 'not measured'
    log(f'  {commit} {subject[:60]}: {times} -> {word}')
    with open(state['tested_file'], 'a') as f:
        f.write(json.dumps({'commit': commit, 'ns': shown, 'verdict': word}) + '\n')
    return verdict


# ---- the whole bisect ----

def read_at_run_time(repo, good, bad, packs):
    """Whether the bench reads every file the range changes when it runs (kernels/' shaders through --kernels-dir,
    a pack's files through --pack), so that one bench serves every commit; and whether kernels/' shaders are among
    them."""
    files = git(repo, 'diff', '--name-only', good, bad).splitlines()
    shaders = [f for f in files if not any(f.startswith(p + '/') for p in packs)]
    return all(f.startswith('kernels/') and f.endswith(SHADER_SUFFIXES) for f in shaders), bool(shaders)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '_step':
        return step(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], epilog=__doc__.split('\n\n', 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('alert', nargs='?', default='', help='alert URL (dashboard or API), or its id with --server')
    ap.add_argument('--run', default='',
                    help='a failed run (its id with --server, or its dashboard URL) instead of an alert: with --benchmark')
    ap.add_argument('--benchmark', default='', help='with --run: the benchmark whose slowdown to bisect (family/variant/size/mode)')
    ap.add_argument('--server', default=os.environ.get('SHADERWATCH_URL', ''),
                    help='results server, for an alert given by id (default: SHADERWATCH_URL)')
    ap.add_argument('--repo', default='.', help='the git repository whose commits the alert names (default: .)')
    ap.add_argument('--bench', default='',
                    help='a built shaderwatch-bench to run each commit\'s shaders with (only where the range changes '
                         'nothing but shader sources; default: one built at the bad commit)')
    ap.add_argument('--pack', action='append', default=[], metavar='DIR',
                    help='a kernel pack in the repository (its directory, relative to --repo): each commit\'s is run '
                         'with --pack; repeatable')
    ap.add_argument('--build-dir', default='',
                    help='build directory for the commits\' benches (default: a temporary one, removed after)')
    ap.add_argument('--bench-args', default='',
                    help='more arguments for each bench run, e.g. "--device 1" or "--quick" (on lavapipe)')
    ap.add_argument('--runs', type=int, default=3,
                    help='bench runs per commit, their samples pooled, each beside a run of either end (twice as '
                         'many at the start, in the confirmation, and for a commit too close to call; default 3)')
    ap.add_argument('--post-note', action='store_true',
                    help='write the result into the alert\'s note (SHADERWATCH_TOKEN with triage scope)')
    args = ap.parse_args()
    if args.runs < 1:
        raise Usage(f'--runs {args.runs}: at least one bench run per commit')

    packs = [os.path.normpath(p) for p in args.pack]
    for p in packs:
        if os.path.isabs(p) or p.startswith('..'):
            raise Usage(f'--pack {p}: a directory inside --repo, relative to it (each commit\'s is run)')
    if bool(args.alert) == bool(args.run):
        raise Usage('name an alert, or a failed run with --run RUN --benchmark NAME (not both)')
    if args.run and not args.benchmark:
        raise Usage('--run needs --benchmark: which of the run\'s benchmarks to bisect')
    if args.post_note and args.run:
        raise Usage('--post-note writes an alert\'s note: it goes with an alert, not --run')

    started = time.monotonic()
    if args.run:
        base, run_id = run_location(args.run, args.server)
        alert = read_run_finding(base, run_id, args.benchmark)
        alert_id = None
    else:
        base, alert_id = alert_location(args.alert, args.server)
        alert = read_alert(base, alert_id)
    repo = git(args.repo, 'rev-parse', '--show-toplevel')
    good, bad = (git(repo, 'rev-parse', '--verify', f'{c}^{{commit}}') for c in (alert['good'], alert['bad']))
    if subprocess.run(['git', '-C', repo, 'merge-base', '--is-ancestor', good, bad]).returncode != 0:
        raise Usage(f'{alert["good"]} is not an ancestor of {alert["bad"]} in {repo}')
    n_commits = int(git(repo, 'rev-list', '--count', f'{good}..{bad}'))
    log(f'{alert["what"]}: {alert["benchmark"]} on {alert["gpu"]}, {alert["before_ns"] / 1e3:.1f} us -> '
        f'{alert["after_ns"] / 1e3:.1f} us, between {good[:12]} (good) and {bad[:12]} (bad): {n_commits} commits')

    scratch = tempfile.mkdtemp(prefix='sw-bisect-')
    worktree = os.path.join(scratch, 'worktree')
    git(repo, 'worktree', 'add', '--detach', worktree, bad)
    try:
        kernels_only, shaders = read_at_run_time(repo, good, bad, packs)
        for p in packs:
            if not os.path.isdir(os.path.join(worktree, p)):
                raise Usage(f'--pack {p}: not a directory of {repo} at the bad commit {bad[:12]}')
        state = {'worktree': worktree, 'scratch': scratch, 'kernel': alert['kernel'], 'size': alert['size'],
                 'benchmark': alert['benchmark'], 'bench_args': args.bench_args, 'kernels_only': kernels_only,
                 'shaders': shaders, 'packs': packs,
                 'tested_file': os.path.join(scratch, 'tested.jsonl'), 'build_dir': '', 'bench': args.bench,
                 'runs': args.runs}
        if not (kernels_only and args.bench):
            state['build_dir'] = args.build_dir or os.path.join(scratch, 'build')
            state['bench'] = os.path.join(state['build_dir'], 'harness', 'shaderwatch-bench')
        if kernels_only and not args.bench:
            log('only shader sources changed: one bench, built at the bad commit, runs each commit\'s kernels/')
            if not build_bench(state):
                raise Usage(f'the bad commit {bad[:12]} does not build')
            state['build_dir'] = ''
        log('mode: ' + (('each commit\'s shaders through --kernels-dir' if shaders else 'one bench') +
                        (', its packs through --pack' if packs else '') if kernels_only
                        else f'each commit built incrementally in {state["build_dir"]}' + (', its packs through --pack' if packs else '')))

        # The change must show here before anything is bisected.
        for name, commit in (('good', good), ('bad', bad)):
            git(worktree, 'checkout', '--quiet', '--detach', commit)
            state[f'{name}_end'] = keep_version(state, f'{name}-end')
            if state[f'{name}_end'] is None:
                log(f'the {name} commit {commit[:12]} does not build here')
                return 3
        measured = measure_in_turn(state, [state['good_end'], state['bad_end']], 2 * args.runs)
        if measured is None:
            log('the ends cannot be measured here')
            return 3
        levels = dict(zip(('good', 'bad'), measured))
        for name, commit in (('good', good), ('bad', bad)):
            log(f'  {commit[:12]} ({name} end): {levels[name] / 1e3:.1f} us')
        here, there = math.log(levels['bad'] / levels['good']), math.log(alert['after_ns'] / alert['before_ns'])
        if here * there <= 0 or abs(here) < 0.5 * abs(there):
            log(f'the change does not reproduce here: {levels["bad"] / levels["good"]:.3f}x between the ends, '
                f'{alert["after_ns"] / alert["before_ns"]:.3f}x on {alert["gpu"]}')
            return 3
        state['good_ns'], state['bad_ns'] = levels['good'], levels['bad']
        state_file = os.path.join(scratch, 'state.json')
        with open(state_file, 'w') as f:
            json.dump(state, f)

        git(worktree, 'bisect', 'start', bad, good)
        log(f'bisecting {n_commits} commits (about {max(1, math.ceil(math.log2(n_commits)))} to test):')
        # Each step's line as it comes (a build and a measurement can take minutes); git's own lines are kept
        # for the verdict.
        bisect = subprocess.Popen(['git', '-C', worktree, 'bisect', 'run', sys.executable, os.path.abspath(__file__),
                                   '_step', state_file], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        said = []
        for line in bisect.stdout:
            said.append(line)
            if line.startswith('  '):
                print(line, end='', flush=True)
        bisect.wait()
        said = ''.join(said)
        tested = []
        if os.path.exists(state['tested_file']):
            with open(state['tested_file']) as f:
                tested = [json.loads(line) for line in f]
        m = re.search(r'^([0-9a-f]{40}) is the first bad commit', said, re.M)
        seconds = time.monotonic() - started
        if not m:
            log(f'bisect could not name one commit after {len(tested)} tested ({seconds:.0f} s):')
            log('\n'.join(said.strip().splitlines()[-8:]))
            return 2
        first_bad = m.group(1)
        # A wrong name is worse than none: the commit and its parent measured again beside the ends, each must fall
        # on its side.
        log('confirming: the first bad commit and its parent measured again, in turn with the ends')
        git(worktree, 'bisect', 'reset', '--quiet', check=False)
        git(worktree, 'checkout', '--quiet', '--detach', first_bad + '^')
        parent = keep_version(state, 'parent')
        git(worktree, 'checkout', '--quiet', '--detach', first_bad)
        named = version_here(state)
        sides = None
        # Where either is not on its side, too close to call or on the wrong one, twice the runs once more, and
        # that measurement alone decides: a machine busy for a minute can put a good parent on the bad side, and
        # a wrong name would need the fresh measurement to put both on the wrong sides.
        for runs in (2 * args.runs, 4 * args.runs):
            measured = None if parent is None or named is None else measure_in_turn(
                state, [state['good_end'], parent, named, state['bad_end']], runs)
            if measured is None:
                log('the first bad commit or its parent cannot be measured again')
                return 2
            good_ns, parent_ns, named_ns, bad_ns = measured
            log(f'  {first_bad[:12]}^: {parent_ns / 1e3:.1f} us; {first_bad[:12]}: {named_ns / 1e3:.1f} us '
                f'(ends {good_ns / 1e3:.1f} and {bad_ns / 1e3:.1f} us)')
            sides = [side_of(where_between_ends(state, good_ns, ns, bad_ns)) for ns in (parent_ns, named_ns)]
            if sides == ['good', 'bad']:
                break
        if sides != ['good', 'bad']:
            log(f'bisect named {first_bad[:12]}, but measured again it is not the boundary: noise decided a step '
                f'(try more --runs, or a quieter machine)')
            return 2
        stat = git(repo, 'show', '--stat', '--format=%h %s%n%an, %ad', first_bad)
        log(f'\nfirst bad commit: {first_bad}\n{stat}\n')
        seconds = time.monotonic() - started
        log(f'{len(tested)} commits tested of {n_commits} in {seconds:.0f} s; levels here '
            f'{levels["good"] / 1e3:.1f} us (good) and {levels["bad"] / 1e3:.1f} us (bad)')
        if args.post_note:
            subject = git(repo, 'log', '-1', '--format=%s', first_bad)
            note = (f'bisect: first bad commit {first_bad[:12]} "{subject[:120]}" ({len(tested)} of {n_commits} '
                    f'commits tested on this machine, {levels["good"] / 1e3:.1f} us -> {levels["bad"] / 1e3:.1f} us)')
            request('PATCH', f'{base}/api/v1/alerts/{alert_id}', {'state': alert['state'], 'note': note})
            log(f'posted to alert #{alert_id} as its note')
        return 0
    finally:
        subprocess.run(['git', '-C', worktree, 'bisect', 'reset', '--quiet'], capture_output=True)
        subprocess.run(['git', '-C', repo, 'worktree', 'remove', '--force', worktree], capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Usage as e:
        print(f'bisect: {e}', file=sys.stderr)
        sys.exit(4)
