import {test} from 'node:test';
import assert from 'node:assert/strict';
import {minMaxIndices, pick} from '../../js/downsample.js';

test('short series are kept whole', () => {
  assert.deepEqual(minMaxIndices([0, 1, 2], [5, 6, 7], 10), [0, 1, 2]);
});

test('a long series keeps at most 4 points per bucket, in order, ends included', () => {
  const n = 100000, xs = Array.from({length: n}, (_, i) => i), ys = xs.map((i) => Math.sin(i / 500));
  const kept = minMaxIndices(xs, ys, 1000);
  assert.ok(kept.length <= 4000 && kept.length >= 2000, `${kept.length}`);
  assert.equal(kept[0], 0);
  assert.equal(kept[kept.length - 1], n - 1);
  for (let i = 1; i < kept.length; i++) assert.ok(kept[i] > kept[i - 1]);
});

test('a single spike and a single dip survive downsampling', () => {
  const n = 50000, xs = Array.from({length: n}, (_, i) => i), ys = xs.map(() => 1);
  ys[12345] = 9;
  ys[33333] = -3;
  const kept = pick(ys, minMaxIndices(xs, ys, 200));
  assert.equal(Math.max(...kept), 9);
  assert.equal(Math.min(...kept), -3);
});

test('missing values are skipped when choosing the extremes', () => {
  const xs = Array.from({length: 100}, (_, i) => i), ys = xs.map((i) => (i % 2 ? null : i));
  const kept = minMaxIndices(xs, ys, 2);
  assert.ok(kept.includes(98));
  assert.ok(kept.every((i) => i === 0 || i === 99 || ys[i] !== null));
});
