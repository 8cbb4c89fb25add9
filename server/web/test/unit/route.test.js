import {test} from 'node:test';
import assert from 'node:assert/strict';
import {parseRoute, buildHash} from '../../js/route.js';

test('an empty hash is the overview', () => {
  assert.deepEqual(parseRoute(''), {page: 'overview', args: [], query: {}});
  assert.deepEqual(parseRoute('#/'), {page: 'overview', args: [], query: {}});
});

test('pages, arguments and query parameters', () => {
  assert.deepEqual(parseRoute('#/series/12?overlay=3%2C4'), {page: 'series', args: ['12'], query: {overlay: '3,4'}});
  assert.deepEqual(parseRoute('#/runs/ci-1%2Fgpu0'), {page: 'runs', args: ['ci-1/gpu0'], query: {}});
});

test('build and parse round-trip, empty values are left out', () => {
  const hash = buildHash('alerts', [], {state: 'new', kind: '', gpu_id: 2, family: undefined});
  assert.equal(hash, '#/alerts?state=new&gpu_id=2');
  assert.deepEqual(parseRoute(hash), {page: 'alerts', args: [], query: {state: 'new', gpu_id: '2'}});
  assert.equal(buildHash('overview'), '#/');
  const odd = buildHash('runs', ['a b/<c>&d']);
  assert.deepEqual(parseRoute(odd).args, ['a b/<c>&d']);
});
