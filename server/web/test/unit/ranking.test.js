import {test} from 'node:test';
import assert from 'node:assert/strict';
import {barWidthPct, defaultView, memoryFigure, spansDecade, variantsByTime} from '../../js/ranking.js';
import {formatPct} from '../../js/format.js';

const group = (family, config, ...gpus) => ({family, config,
  by_gpu: gpus.map((times, i) => ({gpu: {id: i}, ranking: Object.entries(times).map(([variant, value_ns]) => ({variant, value_ns}))}))});

test('the default view is the seeds\' chart: luminance reductions at 1920x1080, else the first on offer', () => {
  const groups = [group('boids', '1048576/cold', {}), group('lum', '1280x720/hot', {}), group('lum', '1920x1080/cold', {}),
    group('lum', '1920x1080/hot', {})];
  assert.deepEqual(defaultView(groups), {families: ['boids', 'lum'], family: 'lum',
    configs: ['1280x720/hot', '1920x1080/cold', '1920x1080/hot'], config: '1920x1080/hot'});
  assert.equal(defaultView(groups, 'boids').config, '1048576/cold');
  assert.equal(defaultView(groups, 'lum', '1280x720/hot').config, '1280x720/hot');
  assert.equal(defaultView([group('postfx', '4096/hot', {})]).family, 'postfx');
});

test('variants are ordered by time, not by name', () => {
  const g = group('lum', '1920x1080/hot', {b_slow: 30, a_slowest: 90, c_fast: 10}, {b_slow: 20, c_fast: 12});
  assert.deepEqual(variantsByTime(g), ['c_fast', 'b_slow', 'a_slowest']);
});

test('log scale is offered where the times span over 10x, and keeps the fast bars readable', () => {
  assert.equal(spansDecade(group('boids', 'x', {single: 93e6, fast: 0.5e6})), true);
  assert.equal(spansDecade(group('lum', 'x', {a: 10, b: 90})), false);
  const linear = barWidthPct(0.5e6, 0.5e6, 93e6, false), log = barWidthPct(0.5e6, 0.5e6, 93e6, true);
  assert.ok(linear < 1, `${linear}`);
  assert.ok(log >= 7, `${log}`);
  assert.equal(barWidthPct(93e6, 0.5e6, 93e6, true), 70);
});

test('a row shows % of roofline, or % of copy peak for a run before it, never one as the other', () => {
  assert.equal(memoryFigure({pct_of_roofline: 97.71, pct_of_copy_peak: null}, formatPct), '97.7% of roofline');
  assert.equal(memoryFigure({pct_of_roofline: null, pct_of_copy_peak: 112.04}, formatPct), '112.0% of copy peak');
  assert.equal(memoryFigure({}, formatPct), null);
});
