import {test} from 'node:test';
import assert from 'node:assert/strict';
import {formatNs, formatDeltaPct, formatPct, formatP, formatTime, shortCommit, spreadPct, outcomeLabel,
  otherMode, geomeanDeltaPct, countOf, coverageText} from '../../js/format.js';

test('times pick the unit a person reads', () => {
  assert.equal(formatNs(512), '512.0 ns');
  assert.equal(formatNs(12192), '12.19 µs');
  assert.equal(formatNs(3.5e6), '3.500 ms');
  assert.equal(formatNs(2e9), '2.000 s');
  assert.equal(formatNs(null), '–');
  assert.equal(formatNs(NaN), '–');
});

test('deltas carry their sign, and a rounded zero has none', () => {
  assert.equal(formatDeltaPct(3.123), '+3.12%');
  assert.equal(formatDeltaPct(-0.5), '-0.50%');
  assert.equal(formatDeltaPct(0.0001), '0.00%');
  assert.equal(formatDeltaPct(undefined), '–');
  assert.equal(formatPct(42.59), '42.6%');
});

test('p values switch to exponent form when tiny', () => {
  assert.equal(formatP(0.0312), '0.0312');
  assert.equal(formatP(1.2e-7), '1.2e-7');
});

test('times show in UTC, minutes; non-dates pass through', () => {
  assert.equal(formatTime('2026-11-21T04:33:38Z'), '2026-11-21 04:33');
  assert.equal(formatTime('2026-11-21T05:33:38+01:00'), '2026-11-21 04:33');
  assert.equal(formatTime('not a date'), 'not a date');
});

test('long hex commits are shortened, other labels are not', () => {
  assert.equal(shortCommit('9fceb02d0ae598e95dc970b74767f19372d61af8'), '9fceb02d0a');
  assert.equal(shortCommit('v1.2-rc'), 'v1.2-rc');
});

test('spread is (p75 - p25) / median, absent without quartiles', () => {
  assert.equal(spreadPct(95, 105, 100), 10);
  assert.equal(spreadPct(null, 105, 100), null);
  assert.equal(spreadPct(95, 105, 0), null);
});

test('outcomes read as the harness prints them', () => {
  assert.equal(outcomeLabel('xfail'), 'XFAIL');
  assert.equal(outcomeLabel('unsupported'), 'UNSUPPORTED');
});

test('the other mode of a benchmark swaps hot and cold only at the end', () => {
  assert.equal(otherMode('lum/seq/1920x1080/hot'), 'lum/seq/1920x1080/cold');
  assert.equal(otherMode('lum/seq/1920x1080/cold'), 'lum/seq/1920x1080/hot');
  assert.equal(otherMode('hot/x/1'), null);
});

test('geomean of ratios', () => {
  assert.ok(Math.abs(geomeanDeltaPct([1.1, 1 / 1.1]) - 0) < 1e-9);
  assert.ok(Math.abs(geomeanDeltaPct([1.04, 1.04]) - 4) < 1e-9);
  assert.equal(geomeanDeltaPct([]), null);
});

test('a count agrees with its noun', () => {
  assert.equal(countOf(1, 'run'), '1 run');
  assert.equal(countOf(0, 'run'), '0 runs');
  assert.equal(countOf(34, 'benchmark'), '34 benchmarks');
});

test('a run says how much of its GPU\'s set it covers', () => {
  assert.equal(coverageText({benchmarks: 34, gpu_benchmarks: 340}), '34 of 340 timed');
  assert.equal(coverageText({benchmarks: 340, gpu_benchmarks: 340}), '340 timed');
  assert.equal(coverageText({benchmarks: 1, gpu_benchmarks: 1}), '1 timed');
  assert.equal(coverageText({}), '');
});
