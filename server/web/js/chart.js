// uPlot, set up for the dashboard: colours from the page's CSS (light or dark), a time axis, times in
// ns on the y axis, and a plugin that draws labelled vertical markers and horizontal level segments.
import {formatNs} from './format.js';

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
        markers.forEach((m, i) => {
          const x = u.valToPos(m.x, 'x', true);
          ctx.strokeStyle = m.color;
          ctx.fillStyle = m.color;
          ctx.lineWidth = 1.5 * dpr;
          ctx.setLineDash([5 * dpr, 4 * dpr]);
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
          ctx.fillText(m.label, x + 4 * dpr, top + (12 + 13 * (i % 3)) * dpr);
        });
        ctx.restore();
      }],
    },
  };
}

// A time-series chart. series: [{label, color, values, points, band: [lowerIdx, upperIdx]}, ...];
// data[0] is x (Unix seconds). onDraw(ms) is called once, after the first draw, with the time since
// `startedAt` (performance.now() when the data arrived).
export function timeChart(container, {data, series, bands = [], markers = [], levels = [], height = 320,
  onCursor = null, startedAt = performance.now(), onDraw = null}) {
  const fg = cssVar('--fg'), line = cssVar('--line');
  let drawn = false;
  const opts = {
    width: Math.max(320, container.clientWidth || 1000),
    height,
    scales: {x: {time: true}},
    axes: [
      {stroke: fg, grid: {stroke: line, width: 1}, ticks: {stroke: line}},
      {stroke: fg, grid: {stroke: line, width: 1}, ticks: {stroke: line}, size: 72,
        values: (u, vals) => vals.map((v) => formatNs(v))},
    ],
    series: [{label: 'time', value: (u, v) => (v === null ? '–' : new Date(v * 1000).toISOString().slice(0, 16).replace('T', ' '))},
      ...series.map((s) => ({
        label: s.label,
        stroke: s.color,
        width: s.width ?? 1.5,
        spanGaps: true,
        show: s.show ?? true,
        paths: s.paths,
        points: s.points ?? {show: true, size: 4},
        value: (u, v) => formatNs(v),
      }))],
    bands,
    cursor: {drag: {x: true, y: false}},
    legend: {live: true},
    plugins: [annotations(markers, levels)],
    hooks: {
      draw: [() => {
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
