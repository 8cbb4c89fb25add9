import {test} from 'node:test';
import assert from 'node:assert/strict';
import {groupAlerts, isCorrectness} from '../../js/alert_groups.js';

// The server sends each alert's kernel (family/variant) and config (size/mode) beside its name.
const alert = (id, benchmark, extra = {}) => ({id, benchmark, kernel: benchmark.split('/').slice(0, 2).join('/'),
  config: benchmark.split('/').slice(2).join('/'), gpu: {id: 1, name: 'H200'}, kind: 'correctness_failure',
  commit: 'c9', state: 'new', error_message: null, ...extra});

test('one broken kernel at every size and mode is one group, with the wrong answer\'s message', () => {
  const sizes = ['7680x4320', '1280x720', '3840x2160', '1920x1080'];
  const alerts = sizes.flatMap((s, i) => ['hot', 'cold'].map((m, j) => alert(10 + 2 * i + j, `lum/sequential_256/${s}/${m}`,
    i === 2 && j === 1 ? {error_message: 'FAIL: sum off by 3.2e-3 (seed 7)'} : {})));
  alerts.push(alert(30, 'lum/sequential_256/1280x720/hot', {gpu: {id: 2, name: 'H100'}}));  // another GPU
  alerts.push(alert(31, 'lum/sequential_256/1280x720/cold', {commit: 'c8'}));               // another change
  alerts.push(alert(32, 'lum/tree_256/1280x720/cold'));                                      // another kernel
  alerts.push(alert(33, 'lum/sequential_256/1280x720/cold', {kind: 'regression'}));          // another kind
  const groups = groupAlerts(alerts);
  assert.equal(groups.length, 5);
  assert.equal(groups[0].kernel, 'lum/sequential_256');
  assert.deepEqual(groups[0].alerts.map((a) => a.rest), ['1280x720/cold', '1280x720/hot', '1920x1080/cold', '1920x1080/hot',
    '3840x2160/cold', '3840x2160/hot', '7680x4320/cold', '7680x4320/hot']);
  assert.equal(groups[0].message, 'FAIL: sum off by 3.2e-3 (seed 7)');
  assert.equal(groups[0].state, 'new');
  const vocab = {correctness_alert_kinds: ['correctness_regression', 'correctness_failure']};
  assert.ok(isCorrectness(groups[0].kind, vocab) && !isCorrectness('regression', vocab));
});

test('a group whose alerts were triaged apart says so', () => {
  const [g] = groupAlerts([alert(1, 'a/b/1/hot'), alert(2, 'a/b/1/cold', {state: 'acknowledged'})]);
  assert.equal(g.state, 'mixed');
});
