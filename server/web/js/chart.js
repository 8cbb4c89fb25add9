// uPlot, set up for the dashboard: colours from the page's CSS (light or dark), x by time or by run
// order, times in ns on the y axis in one unit, ranges that keep every point in view
// (series_axes.js), and a plugin that draws labelled vertical markers and horizontal level segments.
import {formatNs, formatTime} from './format.js';
import {axisLabels, nsUnit, xRange, yRange} from './series_axes.js';
import {placeMarkerLabels} from './marker_labels.js';

export function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

// One colour per GPU, the same order everywhere (the .gpu-N classes in app.css match).
export const GPU_COLORS = ['#0b62c4', '#e36209', '#1a7f37', '#6f42c1', '#c62828', '#5b6470'];

// markers: [{x, label, color}]; levels: [{x0, x1, y, color, dashed}]. x in the chart's x units.
function annotations(markers, levels) {
  return {
    hooks: {
      draw: [(u) => {
        const ctx = u.ctx, dpr = devicePixelRatio || 1, {left, top, width, height} = u.bbox;
        ctx.save();
        ctx.beginPath();
        ctx.rect(left, top, width, height);
        ctx.clip();
        for (const l of levels) {
          const x0 = u.valToPos(l.x0, 'x', true), x1 = u.valToPos(l.x1, 'x', true), y = u.valToPos(l.y, 'y', true);
          ctx.strokeStyle = l.color;
          ctx.lineWidth = 2.5 * dpr;
          ctx.setLineDash(l.dashed ? [6 * dpr, 4 * dpr] : []);
          ctx.beginPath();
          ctx.moveTo(x0, y);
          ctx.lineTo(x1, y);
          ctx.stroke();
        }
        ctx.font = `${11 * dpr}px system-ui, sans-serif`;
        const xs = markers.map((m) => u.valToPos(m.x, 'x', true));
        const placed = placeMarkerLabels(markers.map((m, i) => ({x: xs[i], width: ctx.measureText(m.label).width})),
                                         left, left + width, 4 * dpr);
        markers.forEach((m, i) => {
          const x = xs[i];
          ctx.strokeStyle = m.color;
          ctx.fillStyle = m.color;
          ctx.lineWidth = 1.5 * dpr;
          ctx.setLineDash([5 * dpr, 4 * dpr]);
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
          ctx.textAlign = placed[i].align;  // set each time: uPlot's y axis leaves it 'right'
          ctx.fillText(m.label, placed[i].x, top + (12 + 13 * placed[i].row) * dpr);
        });
        ctx.restore();
      }],
    },
  };
}

// A series chart. series: [{label, color, values, points, band: [lowerIdx, upperIdx]}, ...]; data[0] is
// x: Unix seconds (byTime) or run indices (xLabel(i) names run i). onDraw(ms) is called once, after the
// first draw, with the time since `startedAt` (performance.now() when the data arrived). y is in ns, or
// plain numbers written by yFormat; charts of one syncKey share their cursor. width: the container's unless
// given (a chart drawn before its container is in the page).
export function timeChart(container, {data, series, bands = [], markers = [], levels = [], height = 320,
  onCursor = null, startedAt = performance.now(), onDraw = null, byTime = true, xLabel = (i) => `run ${i + 1}`,
  yFormat = null, syncKey = null, width = null}) {
  const fg = cssVar('--fg'), line = cssVar('--line');
  let drawn = false;
  const xs = data[0].filter(Number.isFinite);
  const dataLo = Math.min(...xs), dataHi = Math.max(...xs);
  const opts = {
    width: width ?? Math.max(320, container.clientWidth || 1000),
    height,
    scales: {
      // The whole series padded (one point once spread over two years); a drag-zoom as asked.
      x: {time: byTime, range: (u, min, max) => (min <= dataLo && max >= dataHi ? xRange([dataLo, dataHi], byTime) : [min, max])},
      y: {range: (u, min, max) => yRange([min, max])},
    },
    axes: [
      byTime ? {stroke: fg, grid: {stroke: line, width: 1}, ticks: {stroke: line}}
        : {stroke: fg, grid: {stroke: line, width: 1}, ticks: {stroke: line}, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000],
          values: (u, vals) => vals.map((v) => (Number.isInteger(v) && v >= dataLo && v <= dataHi ? xLabel(v) : ''))},
      {stroke: fg, grid: {stroke: line, width: 1}, ticks: {stroke: line}, size: 80,
        values: (u, vals) => {
          if (yFormat) return vals.map(yFormat);
          const unit = nsUnit(Math.max(...vals.map(Math.abs)));
          return axisLabels(vals, unit).map((v) => `${v} ${unit.suffix}`);
        }},
    ],
    series: [{label: byTime ? 'time' : 'run', value: (u, v) => (v === null ? '–' : byTime ? formatTime(new Date(v * 1000).toISOString()) : xLabel(v))},
      ...series.map((s) => ({
        label: s.label,
        stroke: s.color,
        width: s.width ?? 1.5,
        spanGaps: true,
        show: s.show ?? true,
        paths: s.paths,
        points: s.points ?? {show: true, size: 4},
        value: (u, v) => (yFormat ? (v === null ? '–' : yFormat(v)) : formatNs(v)),
      }))],
    bands,
    cursor: {drag: {x: true, y: false}, ...(syncKey ? {sync: {key: syncKey}} : {})},
    legend: {live: true},
    plugins: [annotations(markers, levels)],
    hooks: {
      draw: [(u) => {
        // The scales drawn, for tests and for people reading the DOM: what range each axis shows.
        Object.assign(container.dataset, {xMin: u.scales.x.min, xMax: u.scales.x.max, yMin: u.scales.y.min, yMax: u.scales.y.max});
        if (drawn) return;
        drawn = true;
        const ms = performance.now() - startedAt;
        container.dataset.drawMs = ms.toFixed(1);
        if (onDraw) onDraw(ms);
      }],
      setCursor: onCursor ? [(u) => onCursor(u.cursor.idx)] : [],
    },
  };
  container.dataset.points = String(data[0].length);
  return new window.uPlot(opts, data, container);
}
