import {test} from 'node:test';
import assert from 'node:assert/strict';
import {placeMarkerLabels} from '../../js/marker_labels.js';

test('labels of lines far apart share the top row, each right of its line', () => {
  assert.deepEqual(placeMarkerLabels([{x: 100, width: 50}, {x: 300, width: 50}], 0, 1000),
                   [{x: 104, row: 0, align: 'left'}, {x: 304, row: 0, align: 'left'}]);
});

test('a label that would overlap one before it goes down a row, and back up where there is room', () => {
  // The series page's case: a driver boundary's long label, then a runner boundary 180 px to its right.
  const placed = placeMarkerLabels([{x: 100, width: 260}, {x: 280, width: 160}, {x: 700, width: 100}], 0, 1000);
  assert.deepEqual(placed.map((p) => p.row), [0, 1, 0]);
});

test('a label that would run past the right edge ends left of its line', () => {
  const [last] = placeMarkerLabels([{x: 950, width: 120}], 0, 1000);
  assert.deepEqual(last, {x: 946, row: 0, align: 'right'});
  // Where neither side fits, it starts at its line (the plot clips it) rather than running off the left.
  assert.equal(placeMarkerLabels([{x: 40, width: 980}], 0, 1000)[0].align, 'left');
});

test('no two labels of one row overlap, whatever the order of the lines', () => {
  const markers = [];
  for (let i = 0; i < 40; i++) markers.push({x: (i * 377) % 1000, width: 60 + (i * 53) % 200});
  const placed = placeMarkerLabels(markers, 0, 1000);
  const spans = placed.map((p, i) => {
    const start = p.align === 'left' ? p.x : p.x - markers[i].width;
    return {row: p.row, start, end: start + markers[i].width};
  });
  for (const a of spans)
    for (const b of spans)
      if (a !== b && a.row === b.row) assert.ok(a.end <= b.start || b.end <= a.start, JSON.stringify([a, b]));
});
