// Where a chart's marker labels go (chart.js draws them): each beside its line, in the first row where it overlaps
// no label placed before it, and turned to the line's left where it would run past the plot's right edge. Pure, so
// its layout is tested without a canvas.

// markers: [{x, width}] in pixels (x: the marker's line; width: its label's), in drawing order; left, right: the
// plot's edges; gap: the space between a line and its label. Returns [{x, row, align}] in the same order: x where
// the text is anchored, align 'left' (text starts there) or 'right' (it ends there), row 0 at the top.
export function placeMarkerLabels(markers, left, right, gap = 4) {
  const rows = [];  // per row: the [start, end] spans taken
  return markers.map(({x, width}) => {
    const rightward = x + gap + width <= right || x - gap - width < left;
    const start = rightward ? x + gap : x - gap - width;
    const end = start + width;
    let row = rows.findIndex((spans) => spans.every(([s, e]) => end + gap <= s || start >= e + gap));
    if (row < 0) {
      rows.push([]);
      row = rows.length - 1;
    }
    rows[row].push([start, end]);
    return {x: rightward ? x + gap : x - gap, row, align: rightward ? 'left' : 'right'};
  });
}
