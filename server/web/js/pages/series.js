// Series: one benchmark on one GPU over runs (x by run order, or by time with ?x=time): median with its
// p25-p75 band, driver and runner changes and what ran (SPIR-V, input, the driver's compilation) as
// labelled markers, change points as before/after levels, correctness failures as red marks, commit and
// driver on hover, drag to zoom (double-click to reset); a strip under the chart draws one compiled
// statistic per run (registers, say); other GPUs overlaid with their bands; hot and cold side by side.
import {el, clear, badge, select} from '../dom.js';
import {get, vocabulary} from '../api.js';
import {buildHash} from '../route.js';
import {countOf, formatNs, formatDeltaPct, formatTime, shortCommit, otherMode} from '../format.js';
import {minMaxIndices, pick} from '../downsample.js';
import {timeChart, cssVar, GPU_COLORS} from '../chart.js';
import {fillGaps, runOrderXs} from '../series_axes.js';
import {statisticNames, statisticValues, defaultStatistic, statisticsChangeText} from '../compiled.js';

// A driver is its build: its label (name, version, driver_info) and its UUID.
const DRIVER_FIELDS = new Set(['driver', 'driver_uuid', 'api_version']);
// What ran: the kernel's SPIR-V (code), its input, the driver's compilation of it (compiler).
const RAN_FIELDS = {spirv: 'code', input: 'input', statistics: 'compiler'};
const MARKER_COLORS = {driver: '--expected', runner: '--warn', code: '--pass', compiler: '--expected', input: '--muted'};
const POINT_LIMIT = 10000;  // the API's most points per series

const seconds = (iso) => Date.parse(iso) / 1000;

// Covariate changes grouped per run: one driver marker for a driver update, however many of its fields
// changed; one runner marker for a machine change.
export function changeMarkers(s, toX = (p) => seconds(p.started_at)) {
  const byIndex = new Map();
  for (const c of s.covariate_changes) {
    const kind = DRIVER_FIELDS.has(c.field) ? 'driver' : c.field === 'runner' ? 'runner' : RAN_FIELDS[c.field] ?? null;
    if (!kind) continue;
    const key = `${kind}:${c.index}`;
    const m = byIndex.get(key) || {kind, index: c.index, run_id: c.run_id, changes: []};
    m.changes.push(c);
    byIndex.set(key, m);
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index).map((m) => {
    const shown = m.kind === 'driver'
      ? m.changes.find((c) => c.field === 'driver') || m.changes[0] : m.changes[0];
    const what = shown.field === 'driver_uuid' ? 'driver build' : m.kind;
    const label = m.kind === 'code' ? `SPIR-V ${shown.before.slice(0, 8)} → ${shown.after.slice(0, 8)}`
      : m.kind === 'compiler' ? `compiled ${statisticsChangeText(shown.before, shown.after)}`
      : `${what} ${shown.before || 'unknown'} → ${shown.after || 'unknown'}`;
    return {...m, x: toX(s.points[m.index]), label};
  });
}

// Before/after levels of each performance change point, each level running to the neighbouring one.
function changeLevels(s, colors, toX, vocab) {
  const cps = s.change_points.filter((a) => vocab.level_alert_kinds.includes(a.kind) && a.before_ns !== null && a.after_ns !== null);
  const xOf = new Map(s.points.map((p) => [p.run_id, toX(p)]));
  const first = toX(s.points[0]), last = toX(s.points[s.points.length - 1]);
  const levels = [];
  cps.forEach((a, i) => {
    const x = xOf.get(a.run_id);
    if (x === undefined) return;
    const prev = i > 0 ? xOf.get(cps[i - 1].run_id) ?? first : first;
    const next = i + 1 < cps.length ? xOf.get(cps[i + 1].run_id) ?? last : last;
    const color = colors[a.kind];
    const dashed = !vocab.open_alert_states.includes(a.state);  // triaged: drawn dashed
    levels.push({x0: prev, x1: x, y: a.before_ns, color, dashed}, {x0: x, x1: next, y: a.after_ns, color, dashed});
  });
  return levels;
}

// The series' columns for the chart: main's runs draw the line and band; a branch's runs are marks apart from it
// (a branch that is slow is not main staying slow).
function seriesData(s, maxPoints, toX, mainBranch) {
  const xs = s.points.map((p) => toX(p));
  const onMain = (p) => !mainBranch || p.branch === mainBranch;
  const keep = minMaxIndices(xs, s.points.map((p) => p.value_ns), Math.max(1, Math.floor(maxPoints / 4)));
  // undefined: uPlot draws main's line across a branch run's x; null would break it there.
  const med = s.points.map((p) => (onMain(p) ? p.value_ns : undefined));
  const branch = s.points.map((p) => (onMain(p) ? null : p.value_ns));
  // A failed run's mark sits at its own time, or where the series was when it has none.
  let lastValue = null;
  const fails = s.points.map((p) => {
    if (p.value_ns !== null) lastValue = p.value_ns;
    return p.errors > 0 ? p.value_ns ?? lastValue : null;
  });
  return {keep, xs: pick(xs, keep), med: pick(med, keep), p25: pick(s.points.map((p) => (onMain(p) ? p.p25_ns : null)), keep),
    p75: pick(s.points.map((p) => (onMain(p) ? p.p75_ns : null)), keep), fails: pick(fails, keep),
    branch: pick(branch, keep), points: pick(s.points, keep)};
}

function hoverText(p) {
  if (!p) return '';
  return `${formatTime(p.started_at)} · run ${p.run_id} · commit ${shortCommit(p.commit)} · ${p.branch} · ` +
    `${p.driver} · ${p.runner}` + (p.spirv ? ` · SPIR-V ${p.spirv.slice(0, 8)}` : '') + ` · median ${formatNs(p.value_ns)}` +
    (p.p25_ns !== null && p.p75_ns !== null ? ` (p25 ${formatNs(p.p25_ns)}, p75 ${formatNs(p.p75_ns)})` : '') +
    (p.errors > 0 ? ` · FAILED: ${p.error_message}` : '');
}

// One chart: this series (band, failures, markers, levels) and any overlaid GPUs' medians and bands.
function drawSeries(box, s, overlays, startedAt, byTime, vocab) {
  const colors = {regression: cssVar('--fail'), improvement: cssVar('--pass'), ambiguous: cssVar('--warn')};
  const chartBox = el('div', {class: 'chart', 'data-series': s.id, 'data-x': byTime ? 'time' : 'run'});
  const hover = el('div', {class: 'hover muted'}, ' ');
  const markerList = el('ul', {class: 'plain markers'});
  box.append(chartBox, hover, markerList);
  if (!s.points.length) {
    chartBox.append(el('p', {class: 'muted'}, 'No points yet.'));
    return null;
  }
  // x: Unix seconds, or each run's place among every shown run in time order.
  const shown = [s, ...overlays];
  const order = runOrderXs(shown.map((x) => x.points.map((p) => seconds(p.started_at))));
  const xOfPoint = new Map(shown.flatMap((x, i) => x.points.map((p, j) => [p, byTime ? seconds(p.started_at) : order[i][j]])));
  const toX = (p) => xOfPoint.get(p);
  const width = Math.max(320, box.clientWidth || 1000);
  const mainBranch = vocab.main_branch;
  const main = seriesData(s, 4 * width, toX, mainBranch);
  const markers = changeMarkers(s, toX).map((m) => ({...m, color: cssVar(MARKER_COLORS[m.kind])}));
  for (const m of markers)
    markerList.append(el('li', {'data-marker': m.kind},
      `${m.label} at ${formatTime(s.points[m.index].started_at)} (run ${m.run_id})`));
  const tables = [[main.xs, main.med, main.p25, main.p75, main.fails, main.branch]];
  for (const o of overlays) {
    const d = seriesData(o, 4 * width, toX, mainBranch);
    tables.push([d.xs, d.med, d.p25, d.p75]);
  }
  const data = tables.length > 1 ? window.uPlot.join(tables) : tables[0];
  // The bands' edges bridged over the other series' x (and a branch's runs), or each band breaks at every one of them.
  const bandEdges = [2, 3, ...overlays.flatMap((o, i) => [7 + 3 * i, 8 + 3 * i])];
  for (const k of bandEdges) data[k] = fillGaps(data[k]);
  const pointAt = new Map(main.xs.map((x, i) => [x, main.points[i]]));
  const runAt = new Map(shown.flatMap((x) => x.points.map((p) => [toX(p), p])));
  const edge = {color: 'transparent', points: {show: false}, width: 0};
  const series = [
    {label: `${s.gpu.name} median`, color: GPU_COLORS[0]},
    {label: 'p25', ...edge},
    {label: 'p75', ...edge},
    {label: 'correctness failure', color: cssVar('--fail'), paths: () => null,
      points: {show: true, size: 10, fill: cssVar('--fail'), stroke: cssVar('--fail')}},
    {label: 'branch run', color: cssVar('--warn'), paths: () => null,
      points: {show: true, size: 7, fill: 'transparent', stroke: cssVar('--warn')}},
    ...overlays.flatMap((o, i) => [{label: `${o.gpu.name} median`, color: GPU_COLORS[(i + 1) % GPU_COLORS.length]},
      {label: `${o.gpu.name} p25`, ...edge}, {label: `${o.gpu.name} p75`, ...edge}]),
  ];
  const bands = [{series: [3, 2], fill: cssVar('--band')},
    ...overlays.map((o, i) => ({series: [8 + 3 * i, 7 + 3 * i], fill: `${GPU_COLORS[(i + 1) % GPU_COLORS.length]}22`}))];
  const syncKey = `series-${s.id}`;
  const chart = timeChart(chartBox, {
    data, series, startedAt, bands, byTime, syncKey, width,
    xLabel: (x) => { const p = runAt.get(x); return p ? shortCommit(p.commit).slice(0, 8) : ''; },
    markers, levels: changeLevels(s, colors, toX, vocab),
    onCursor: (idx) => { hover.textContent = idx === null || idx === undefined ? ' ' : hoverText(pointAt.get(data[0][idx])); },
  });
  chartBox.dataset.points = String(main.xs.length);
  chartBox.dataset.failures = String(main.fails.filter((v) => v !== null).length);
  chartBox.dataset.branchPoints = String(main.branch.filter((v) => v !== null).length);
  chartBox.dataset.mainPoints = String(main.med.filter((v) => v !== undefined).length);
  // The strip's markers without their labels: the chart above says them.
  const stripMarkers = markers.filter((m) => m.kind === 'code' || m.kind === 'compiler').map((m) => ({...m, label: ''}));
  const strip = statisticsStrip(s, toX, byTime, stripMarkers, syncKey, width);
  chartBox.after(strip.box);
  return {destroy: () => { chart.destroy(); strip.destroy(); }};
}

// Under the chart, on its x axis: one statistic of the driver's compilation per run, a step where it changed
// (a select picks which). Says so where the runs recorded none.
function statisticsStrip(s, toX, byTime, markers, syncKey, width) {
  const box = el('div', {class: 'statistics-strip'});
  const names = statisticNames(s.compiled);
  let chart = null;
  if (!names.length) {
    box.append(el('p', {class: 'muted'}, Object.keys(s.compiled).length
      ? 'The driver reported no compiled statistics for these runs (no VK_KHR_pipeline_executable_properties).'
      : 'These runs did not record what was compiled (a bench before the compiled section).'));
    return {box, destroy: () => {}};
  }
  const plot = el('div', {class: 'chart strip'});
  const draw = (name) => {
    if (chart) chart.destroy();
    clear(plot);
    const xs = s.points.map((p) => toX(p));
    const values = statisticValues(s.points, s.compiled, name);
    plot.dataset.statistic = name;
    plot.dataset.values = JSON.stringify(values);
    chart = timeChart(plot, {
      data: [xs, values], byTime, height: 130, syncKey, markers, width,
      series: [{label: name, color: cssVar('--expected'), paths: window.uPlot.paths.stepped({align: 1}), points: {show: true, size: 3}}],
      xLabel: (x) => { const p = s.points.find((q) => toX(q) === x); return p ? shortCommit(p.commit).slice(0, 8) : ''; },
      yFormat: (v) => String(Math.round(v * 100) / 100),
    });
  };
  const pick = select(names, defaultStatistic(s.points, s.compiled), draw, {'aria-label': 'compiled statistic'});
  box.append(el('p', {class: 'strip-title'}, 'Compiled: ', pick), plot);
  draw(pick.value);
  return {box, destroy: () => chart && chart.destroy()};
}

function changePointTable(s) {
  if (!s.change_points.length) return el('p', {class: 'muted'}, 'No alerts on this series.');
  return el('table', {class: 'data'},
    el('thead', {}, el('tr', {}, ['Alert', 'Kind', 'State', 'Cause', 'Run', 'Before', 'After', 'Δ'].map((h) => el('th', {}, h)))),
    el('tbody', {}, s.change_points.map((a) => el('tr', {},
      el('td', {}, el('a', {href: buildHash('alerts', [], {id: a.id})}, `#${a.id}`)),
      el('td', {}, a.kind), el('td', {}, a.state), el('td', {}, a.cause),
      el('td', {}, el('a', {href: buildHash('runs', [a.run_id])}, a.run_id)),
      el('td', {class: 'num'}, formatNs(a.before_ns)), el('td', {class: 'num'}, formatNs(a.after_ns)),
      el('td', {class: 'num'}, formatDeltaPct(a.delta_pct))))));
}

export async function render(main, route, stale) {
  const id = Number(route.args[0]);
  if (!Number.isInteger(id) || id < 0) throw new Error(`"${route.args[0]}" is not a series id`);
  const overlayIds = (route.query.overlay || '').split(',').filter((x) => /^\d+$/.test(x)).map(Number);
  const byTime = route.query.x === 'time';
  const [s, vocab] = await Promise.all([get(`series/${id}`, {limit: POINT_LIMIT}), vocabulary()]);
  const startedAt = performance.now();
  const [siblings, overlays, other] = await Promise.all([
    get('series', {benchmark: s.benchmark}),
    Promise.all(overlayIds.filter((o) => o !== id).map((o) => get(`series/${o}`, {limit: POINT_LIMIT}))),
    otherMode(s.benchmark) ? get('series', {benchmark: otherMode(s.benchmark), gpu_id: s.gpu.id}) : null,
  ]);
  if (stale()) return null;
  clear(main);
  const toggles = siblings.series.filter((x) => x.id !== id).map((x) => {
    const on = overlayIds.includes(x.id);
    const next = on ? overlayIds.filter((o) => o !== x.id) : [...overlayIds, x.id];
    return el('a', {href: buildHash('series', [id], {overlay: next.join(','), x: route.query.x}), class: on ? 'active' : null},
      on ? `✓ ${x.gpu.name}` : `+ ${x.gpu.name}`);
  });
  main.append(el('h1', {}, s.benchmark),
    el('p', {}, badge(s.gpu.name, 'muted'), ' ', el('span', {class: 'muted'}, countOf(s.points.length, 'run')), ' · ',
      el('a', {href: buildHash('alerts', [], {benchmark: s.benchmark, gpu_id: s.gpu.id})}, 'alerts'),
      toggles.length ? [' · overlay: ', toggles.map((t, i) => [i ? ', ' : '', t])] : '', ' · x: ',
      el('a', {id: 'x-axis', href: buildHash('series', [id], {overlay: route.query.overlay, x: byTime ? undefined : 'time'})},
        byTime ? 'by time (show by run)' : 'by run (show by time)')));
  const counterpart = other?.series?.[0];
  const charts = [];
  if (counterpart) {
    const otherSeries = await get(`series/${counterpart.id}`, {limit: POINT_LIMIT});
    if (stale()) return null;
    const grid = el('div', {class: 'charts-side'});
    const left = el('div', {}, el('h2', {}, s.benchmark.split('/').pop()));
    const right = el('div', {}, el('h2', {}, el('a', {href: buildHash('series', [counterpart.id])}, otherSeries.benchmark.split('/').pop())));
    grid.append(left, right);
    main.append(grid);
    charts.push(drawSeries(left, s, overlays, startedAt, byTime, vocab),
      drawSeries(right, otherSeries, [], performance.now(), byTime, vocab));
  } else {
    const box = el('div');
    main.append(box);
    charts.push(drawSeries(box, s, overlays, startedAt, byTime, vocab));
  }
  main.append(el('h2', {}, 'Change points and alerts'), changePointTable(s));
  return () => charts.forEach((c) => c && c.destroy());
}
