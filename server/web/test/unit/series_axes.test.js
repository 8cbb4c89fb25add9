import {test} from 'node:test';
import assert from 'node:assert/strict';
import {axisLabels, fillGaps, nsUnit, runOrderXs, xRange, yRange} from '../../js/series_axes.js';

test('run order: every run one step, in time order across the shown GPUs', () => {
  assert.deepEqual(runOrderXs([[100, 300, 500], [200, 300]]), [[0, 2, 3], [1, 2]]);
  // Two runs of one series that started together: each its own x, the overlay's at that time with the first.
  assert.deepEqual(runOrderXs([[100, 300, 300, 500], [300]]), [[0, 1, 2, 3], [1]]);
});

test('one point: a sane x range by time (not 2027 to 2029) and by run order', () => {
  const t = Date.parse('2026-11-25T04:00:00Z') / 1000;
  const [lo, hi] = xRange([t], true);
  assert.equal(hi - lo, 7200);
  assert.deepEqual(xRange([0], false), [-0.5, 0.5]);
  assert.deepEqual(xRange([0, 1, 2], false), [-0.5, 2.5]);
});

test('y range keeps every value, band and overlay in view, with room', () => {
  const [lo, hi] = yRange([100, 95, 105, null, 180]);
  assert.ok(lo < 95 && hi > 180, `${lo} ${hi}`);
  const [one0, one1] = yRange([5000]);
  assert.ok(one0 < 5000 && one1 > 5000 && one0 >= 0);
});

test('one unit per axis: µs ticks stay µs, no "1.000 ms" beside "900.0 µs"', () => {
  const unit = nsUnit(1.05e6);
  assert.equal(unit.suffix, 'ms');
  assert.deepEqual(axisLabels([0.9e6, 0.95e6, 1.0e6], unit), ['0.90', '0.95', '1.00']);
  assert.deepEqual(axisLabels([10e3, 20e3, 30e3], nsUnit(31e3)), ['10', '20', '30']);
  assert.deepEqual(axisLabels([477.5e3, 480e3, 482.5e3], nsUnit(485e3)), ['477.5', '480.0', '482.5']);
});

test('band gaps from joined data are bridged, the ends left alone', () => {
  assert.deepEqual(fillGaps([null, 1, null, null, 4, null]), [null, 1, 2, 3, 4, null]);
});
