import {test} from 'node:test';
import assert from 'node:assert/strict';
import {statisticNames, statisticValues, defaultStatistic, statisticsChangeText, compiledRows, statisticText} from '../../js/compiled.js';

const stat = (executable, statistic, value) => ({name: `${executable} ${statistic}`, executable, statistic, value});
const compiled = {
  1: {spirv: 'aa', input: 'random@1', statistics: [stat('CS', 'Register Count', 16), stat('CS', 'Binary Size', 1024)]},
  2: {spirv: 'aa', input: 'random@1', statistics: [stat('CS', 'Register Count', 16), stat('CS', 'Binary Size', 1152)]},
};
const points = [{compiled_id: '1'}, {compiled_id: null}, {compiled_id: '1'}, {compiled_id: '2'}];

test('the strip shows, per point, the statistic that changes along the series', () => {
  assert.deepEqual(statisticNames(compiled), ['CS Register Count', 'CS Binary Size']);
  assert.deepEqual(statisticValues(points, compiled, 'CS Binary Size'), [1024, null, 1024, 1152]);
  assert.equal(defaultStatistic(points, compiled), 'CS Binary Size');
  assert.equal(defaultStatistic(points.slice(0, 3), compiled), 'CS Register Count');
  assert.equal(defaultStatistic(points, {}), null);
});

test('a statistics change reads as name, old value, new value', () => {
  assert.equal(statisticsChangeText('CS Register Count 16', 'CS Register Count 24'), 'CS Register Count 16 → 24');
  assert.equal(statisticsChangeText('CS Register Count 16; FS Binary Size 512', 'CS Register Count 24; FS Binary Size absent'),
    'CS Register Count 16 → 24; FS Binary Size 512 → absent');
});

test('a run\'s kernels: one column per statistic, the stages of a graphics pipeline in one cell', () => {
  const {columns, rows} = compiledRows([
    {kernel: 'boids/blend_1x1', spirv: 'bb', input: 'random@1',
      statistics: [stat('VS', 'Register Count', 16), stat('FS', 'Register Count', 20), stat('FS', 'Output Colors', 1)]},
    {kernel: 'lum/x', spirv: 'cc', input: 'hdr-test@1', statistics: [stat('CS', 'Register Count', 32)]},
    {kernel: 'lum/lavapipe', spirv: 'dd', input: 'random@1', statistics: []},
    {kernel: 'boids/two_pass', spirv: 'ee', input: 'random@1',
      statistics: [stat('CS', 'Register Count', 24), {...stat('CS', 'Register Count', 22), name: 'pipeline 2 CS Register Count'}]},
  ]);
  assert.deepEqual(columns, ['Register Count', 'Output Colors']);
  assert.equal(rows[0].cells['Register Count'], 'VS 16 · FS 20');
  assert.equal(rows[0].values['Register Count'], 20);
  assert.equal(rows[1].cells['Register Count'], '32');
  assert.deepEqual(rows[2].cells, {});
  assert.equal(rows[3].cells['Register Count'], 'CS 24 · pipeline 2 CS 22');
});

test('sizes in units people read (the drivers report bytes), counts as they are', () => {
  assert.equal(statisticText('Local Memory Size', 68719476736), '64 GiB');
  assert.equal(statisticText('Shared Memory Size', 1028), '1.00 KiB');
  assert.equal(statisticText('Binary Size', 4096), '4 KiB');
  assert.equal(statisticText('Stack Size', 0), '0');
  assert.equal(statisticText('Register Count', 4096), '4096');
});
