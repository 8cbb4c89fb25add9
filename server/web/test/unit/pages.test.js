// The pure parts of the pages: what they compute from API answers before drawing.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {changeMarkers} from '../../js/pages/series.js';
import {commitsByCoverage} from '../../js/pages/gpus.js';
import {defaultBase, memoryColumnLabel, runCounts, runRows} from '../../js/pages/run.js';
import {backSinceRun, recentFailures} from '../../js/pages/overview.js';

test('a driver update is one marker however many of its fields changed; runner changes are their own', () => {
  const at = (i) => `2026-01-0${i + 1}T00:00:00Z`;
  const s = {
    points: [0, 1, 2, 3].map((i) => ({started_at: at(i)})),
    covariate_changes: [
      {index: 1, run_id: 'r1', field: 'driver_uuid', before: 'aaaa', after: 'bbbb'},
      {index: 2, run_id: 'r2', field: 'driver', before: 'NVIDIA 580.1', after: 'NVIDIA 580.2'},
      {index: 2, run_id: 'r2', field: 'api_version', before: '1.3.1', after: '1.3.2'},
      {index: 3, run_id: 'r3', field: 'runner', before: 'box-1', after: 'box-2'},
      {index: 3, run_id: 'r3', field: 'branch', before: 'main', after: 'pr-1'},
    ],
  };
  const m = changeMarkers(s);
  assert.deepEqual(m.map((x) => [x.kind, x.index, x.label]),
    [['driver', 1, 'driver build aaaa → bbbb'], ['driver', 2, 'driver NVIDIA 580.1 → NVIDIA 580.2'],
      ['runner', 3, 'runner box-1 → box-2']]);
  assert.equal(m[1].x, Date.parse(at(2)) / 1000);
});

test('the comparison defaults to the commit run on the most GPUs, newest first among equals', () => {
  const run = (commit, gpu) => ({commit, gpu: {id: gpu}});
  const c = commitsByCoverage([run('c3', 1), run('c2', 1), run('c2', 2), run('c1', 1), run('c1', 2), run('c1', 2)]);
  assert.deepEqual(c.map((x) => [x.commit, x.gpus.size]), [['c2', 2], ['c1', 2], ['c3', 1]]);
});

test('a run page lists measured benchmarks and the ones with no time', () => {
  const rows = runRows({
    points: [{benchmark: 'a', series_id: 1, value_ns: 100, p25_ns: 95, p75_ns: 105, pct_of_roofline: 40,
      err_bound_ratio: 0.1, outcome: 'pass', repetitions: 3, errors: 0, error_message: ''}],
    not_measured: [{benchmark: 'b', outcome: 'unsupported', error_message: 'UNSUPPORTED: too big'}],
  });
  assert.equal(rows.length, 2);
  assert.equal(rows[0].spread, 10);
  assert.equal(rows[0].peak, 40);
  assert.equal(rows[1].outcome, 'unsupported');
  assert.equal(rows[1].median, null);
});

// Issue 56: where bandwidth does not bound a kernel, its row carries the limit instead of a % of roofline near zero;
// "bandwidth", and runs that do not say (before contract format 4), keep the percentage.
test('a run page shows what bounds a kernel where it is not bandwidth', () => {
  const point = (benchmark, limit) => ({benchmark, series_id: 1, value_ns: 100, pct_of_roofline: 0.3, outcome: 'pass',
    repetitions: 10, errors: 0, limit});
  const rows = runRows({points: [point('a', 'latency'), point('b', 'compute'), point('c', 'bandwidth'), point('d', null)]});
  assert.deepEqual(rows.map((r) => [r.limit, r.peak]), [['latency', null], ['compute', null], [null, 0.3], [null, 0.3]]);
});

// Issue 52: every row says the verdict's finding with its change; failing rows first, then the other findings; the
// counts are the table's own (every benchmark, timed or not), so the header and the table agree.
test('a run page puts the verdict\'s failing benchmarks first, each with its finding and change', () => {
  const point = (benchmark) => ({benchmark, series_id: 1, value_ns: 100, outcome: 'pass', repetitions: 10, errors: 0});
  const answer = {points: [point('a'), point('b'), point('c'), point('d')],
    not_measured: [{benchmark: 'n', outcome: 'xfail', error_message: 'EXPECTED: XFAIL'}]};
  const verdict = {explanations: [
    {benchmark: 'c', finding: 'slowdown', failing: true, change_pct: 161.2},
    {benchmark: 'b', finding: 'suspect', failing: false, change_pct: 8.5},
    {benchmark: 'c', finding: 'acknowledged', failing: false, change_pct: 3}]};
  const rows = runRows(answer, verdict);
  assert.deepEqual(rows.map((r) => r.benchmark), ['c', 'b', 'a', 'd', 'n']);
  assert.deepEqual(rows.map((r) => r.finding), ['slowdown', 'suspect', null, null, null]);
  assert.equal(rows[0].change, 161.2);
  assert.equal(rows[0].failing, true);
  assert.equal(runCounts(rows), '5 benchmarks: 4 timed, 1 not timed (expected failures, skipped or unsupported); 1 failing');
});

test('a run names its memory figure: % of roofline, or % of copy peak for runs from before it', () => {
  assert.equal(memoryColumnLabel([{pct_of_roofline: 97.7, pct_of_copy_peak: null}]), '% of roofline');
  assert.equal(memoryColumnLabel([{pct_of_roofline: null, pct_of_copy_peak: 112}]), '% of copy peak');
});

test('"Compare with" proposes the newest earlier run that covers as much, not a partial one', () => {
  const run = (id, started_at, benchmarks) => ({id, started_at, benchmarks});
  const full = run('full', '2026-11-03T00:00:00Z', 348);
  const siblings = [run('later', '2026-11-04T00:00:00Z', 348), full, run('partial', '2026-11-02T00:00:00Z', 34),
    run('older-full', '2026-11-01T00:00:00Z', 348)];
  assert.equal(defaultBase(full, siblings), 'older-full');
  assert.equal(defaultBase(siblings[2], siblings), 'older-full');  // a partial run: the full one before it covers it
  assert.equal(defaultBase(run('first', '2026-10-01T00:00:00Z', 348), siblings), 'later');  // nothing earlier
});

test('the overview lists a GPU\'s failed runs of the week up to its last run, and links a fixed regression to its revert', () => {
  const run = (id, gpu, verdict, started_at) => ({id, gpu: {id: gpu}, verdict: {verdict}, started_at});
  const runs = [run('r9', 1, 'pass', '2026-11-20T00:00:00Z'), run('r8', 1, 'fail', '2026-11-19T00:00:00Z'),
    run('x1', 2, 'fail', '2026-11-19T00:00:00Z'), run('r1', 1, 'fail', '2026-11-01T00:00:00Z')];
  assert.deepEqual(recentFailures(runs, 1, '2026-11-20T00:00:00Z').map((r) => r.id), ['r8']);
  assert.equal(backSinceRun('back on its level for 6 runs; back since run revert-7'), 'revert-7');
  assert.equal(backSinceRun('fixed by hand'), null);
});
