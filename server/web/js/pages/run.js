// A run: its verdict and every benchmark (median, spread, % of roofline, error/bound, outcome), sortable and
// filterable; a form to compare it with another run; what the driver compiled of each kernel.
import {el, clear, badge, safeLink, select} from '../dom.js';
import {get} from '../api.js';
import {buildHash} from '../route.js';
import {countOf, coverageText, formatNs, formatPct, formatNumber, formatTime, shortCommit, spreadPct, outcomeLabel} from '../format.js';
import {dataTable} from '../table.js';
import {verdictBadge} from './overview.js';
import {compiledRows} from '../compiled.js';

const OUTCOME_BADGE = {
  pass: 'pass', flake: 'expected', fail: 'fail', xfail: 'expected', xpass: 'expected', skip: 'muted', unsupported: 'muted',
};

// A run carries % of roofline, or (from before it) % of the copy peak: the column says which.
export function memoryColumnLabel(points) {
  return points.some((p) => Number.isFinite(p.pct_of_roofline)) ? '% of roofline'
    : points.some((p) => Number.isFinite(p.pct_of_copy_peak)) ? '% of copy peak' : '% of roofline';
}

// What bounds a benchmark's time where it is not bandwidth ('latency', 'compute': the bench's catalog says), else
// null: there its % of roofline is near zero by design, and the column shows the limit instead.
export function boundBy(point) {
  return point.limit && point.limit !== 'bandwidth' ? point.limit : null;
}

// The run "Compare with" proposes: the newest earlier run on the GPU that covers at least as many
// benchmarks (a partial run, one size or a filter, compares over almost nothing), else the newest other.
export function defaultBase(run, siblings) {
  const others = siblings.filter((x) => x.id !== run.id);
  const earlier = others.filter((x) => x.started_at <= run.started_at);
  return (earlier.find((x) => x.benchmarks >= run.benchmarks) || earlier[0] || others[0])?.id ?? null;
}

// Every benchmark of the run once, with the verdict's finding on it (its first explanation): failing ones first,
// then the other findings (suspects, unconfirmed, acknowledged), then the rest, each group in the run's order.
export function runRows(answer, verdict = {}) {
  const explained = new Map();
  for (const e of verdict.explanations || []) if (!explained.has(e.benchmark)) explained.set(e.benchmark, e);
  const measured = answer.points.map((p) => ({
    benchmark: p.benchmark, series_id: p.series_id, median: p.value_ns,
    spread: spreadPct(p.p25_ns, p.p75_ns, p.value_ns), peak: boundBy(p) ? null : p.pct_of_roofline ?? p.pct_of_copy_peak ?? null,
    limit: boundBy(p),
    err: p.err_bound_ratio ?? null, outcome: p.outcome || (p.errors > 0 ? 'fail' : 'pass'),
    reps: p.repetitions, message: p.error_message}));
  const others = (answer.not_measured || []).map((p) => ({benchmark: p.benchmark, series_id: null, median: null,
    spread: null, peak: null, limit: null, err: null, outcome: p.outcome, reps: null, message: p.error_message}));
  const rows = [...measured, ...others].map((r) => {
    const e = explained.get(r.benchmark);
    return {...r, finding: e?.finding ?? null, failing: Boolean(e?.failing), change: e?.change_pct ?? null, explanation: e ?? null};
  });
  const rank = (r) => (r.failing ? 0 : r.finding ? 1 : 2);
  return rows.map((r, i) => [r, i]).sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j).map(([r]) => r);
}

// The counts the page shows, from the rows the table holds: every benchmark, the timed ones, the rest.
export function runCounts(rows) {
  const timed = rows.filter((r) => Number.isFinite(r.median)).length;
  const failing = rows.filter((r) => r.failing || r.outcome === 'fail').length;
  return `${countOf(rows.length, 'benchmark')}: ${timed} timed, ${rows.length - timed} not timed (expected failures, ` +
    `skipped or unsupported); ${failing} failing`;
}

// One of the verdict's explanations, as every output words it: the finding, what changed, where to go next.
export function explanationItem(e) {
  const next = e.next || {};
  const links = [
    e.baseline_run ? el('a', {href: buildHash('compare', [], {base: e.baseline_run, contender: e.run_id})}, `compare with run ${e.baseline_run}`) : null,
    e.alert_id ? el('a', {href: buildHash('alerts', [], {id: e.alert_id})}, `alert #${e.alert_id}`) : null,
  ].filter(Boolean);
  return el('li', {class: e.failing ? 'explained failing' : 'explained'},
    el('a', {href: buildHash('series', [e.series_id])}, e.benchmark), ': ', el('span', {class: 'headline'}, e.headline),
    el('div', {class: 'evidence'}, e.evidence),
    el('div', {class: 'next muted'}, links.map((l, i) => [i ? ' · ' : '', l]),
      next.reproduce ? [links.length ? ' · ' : '', 'measure it: ', el('code', {}, next.reproduce)] : '',
      next.bisect ? [' · find the commit: ', el('code', {}, next.bisect)] : ''));
}

const FINDING_BADGE = {slowdown: 'fail', regression: 'fail', correctness_failure: 'fail', correctness_regression: 'fail',
  suspect: 'warn', unconfirmed: 'warn', acknowledged: 'muted'};

export async function render(main, route, stale) {
  const id = route.args[0];
  const [answer, verdict] = await Promise.all([get(`runs/${encodeURIComponent(id)}`), get(`runs/${encodeURIComponent(id)}/verdict`)]);
  const siblings = await get('runs', {gpu_id: answer.run.gpu.id, limit: 50});
  if (stale()) return;
  const r = answer.run;
  clear(main);
  const rows = runRows(answer, verdict);
  const partial = Number.isFinite(r.gpu_benchmarks) && r.gpu_benchmarks > r.benchmarks;
  main.append(el('h1', {}, `Run ${r.id} `, verdictBadge(verdict)),
    el('p', {}, `${r.gpu.name} · ${r.driver.name} ${r.driver.version} · commit `, el('span', {class: 'mono'}, shortCommit(r.commit)),
      ` · ${r.branch} · runner ${r.runner} · ${formatTime(r.started_at)} · `, safeLink(r.job_url, 'CI job')),
    el('p', {class: 'run-counts'}, runCounts(rows),
      partial ? el('span', {class: 'run-coverage'}, ` · a partial run: ${coverageText(r)} of what this GPU has run`) : ''));
  // What the verdict could see: a new series' pass says little, and the page says so.
  if (verdict.coverage) main.append(el('p', {class: 'muted coverage'}, verdict.coverage.line));
  // A noisier runner (or driver) is named, never failed on: its series' noise alerts are in the alert list.
  if (verdict.noise) main.append(el('p', {class: 'noise-note'}, verdict.noise.line));
  // The verdict's explanations: what failed, then what may (suspects, unconfirmed and acknowledged regressions).
  const explanations = verdict.explanations || [];
  for (const [failing, title] of [[true, 'What failed'], [false, 'Not failing yet']]) {
    const list = explanations.filter((e) => e.failing === failing);
    if (list.length) main.append(el('h2', {}, `${title} (${list.length})`), el('ul', {class: 'problems'}, list.map(explanationItem)));
  }
  if (verdict.skipped.length) main.append(el('p', {class: 'muted'}, `${verdict.skipped.length} skipped (the device cannot run them, or an expectations entry skips them).`));
  const others = siblings.runs.filter((x) => x.id !== r.id);
  if (others.length) {
    const pickRun = select(others.map((x) => [x.id, `${x.id} · ${shortCommit(x.commit)} · ${formatTime(x.started_at)} · ${coverageText(x)}`]),
      defaultBase(r, others), () => {}, {'aria-label': 'compare with'});
    main.append(el('form', {class: 'inline', onsubmit: (e) => {
      e.preventDefault();
      location.hash = buildHash('compare', [], {base: pickRun.value, contender: r.id});
    }}, 'Compare with ', pickRun, el('button', {type: 'submit'}, 'compare')));
  }
  const columns = [
    {key: 'benchmark', label: 'Benchmark', value: (x) => x.benchmark,
      cell: (x) => (x.series_id !== null ? el('a', {href: buildHash('series', [x.series_id])}, x.benchmark) : x.benchmark)},
    {key: 'median', label: 'Median', numeric: true, value: (x) => x.median, cell: (x) => formatNs(x.median)},
    {key: 'spread', label: 'Spread (p25–p75)', numeric: true, value: (x) => x.spread, cell: (x) => formatPct(x.spread, 2)},
    {key: 'peak', label: memoryColumnLabel(answer.points), numeric: true, value: (x) => x.peak,
      cell: (x) => (x.limit ? el('span', {class: 'muted'}, `${x.limit}-bound`) : formatPct(x.peak))},
    {key: 'err', label: 'err / bound', numeric: true, value: (x) => x.err, cell: (x) => formatNumber(x.err)},
    {key: 'change', label: 'Change', numeric: true, value: (x) => x.change,
      cell: (x) => (Number.isFinite(x.change) ? `${x.change > 0 ? '+' : ''}${formatNumber(x.change, 3)}%` : '–')},
    {key: 'outcome', label: 'Status', value: (x) => (x.finding ? `${x.finding} ` : '') + outcomeLabel(x.outcome),
      cell: (x) => [x.finding ? [badge(x.finding.replaceAll('_', ' '), FINDING_BADGE[x.finding] || 'warn'), ' '] : '',
        badge(outcomeLabel(x.outcome), OUTCOME_BADGE[x.outcome] || 'muted'), x.message ? el('span', {class: 'muted'}, ` ${x.message}`) : '']},
    {key: 'reps', label: 'Reps', numeric: true, value: (x) => x.reps},
  ];
  main.append(el('h2', {}, 'Benchmarks'), dataTable(columns, rows, {
    filterPlaceholder: 'filter benchmarks', rowClass: (x) => (x.outcome === 'fail' || x.failing ? 'row-fail' : null)}),
  el('p', {class: 'muted legend'}, 'Median: of the kernel\'s timed dispatches (GPU timestamps). Spread: the p25–p75 range of ' +
    'those dispatches over the median. % of roofline: the least time the kernel\'s memory traffic takes at the bandwidths ' +
    'this GPU showed, over the median (100% is the hardware\'s limit); where bandwidth does not bound the kernel, what ' +
    'does: latency-bound (steps that wait on each other: one invocation or workgroup doing the work, atomics or blending ' +
    'into one place, a chain of small dispatches) or compute-bound (arithmetic per byte, a gather). err / bound: the ' +
    'answer\'s error over the bound its error analysis allows (a pass is under 1). Change: against the baseline the ' +
    'verdict named, where it named the benchmark. Status: the verdict\'s finding, then the bench\'s outcome.'));
  main.append(el('h2', {id: 'compiled'}, 'What was compiled'), compiledTable(answer.compiled || []));
}

// Each kernel's SPIR-V hash, input and the statistics the driver reported, one column per statistic.
function compiledTable(entries) {
  if (!entries.length) return el('p', {class: 'muted'}, 'This run did not record what was compiled (a bench before the compiled section).');
  const {columns, rows} = compiledRows(entries);
  const table = dataTable([
    {key: 'kernel', label: 'Kernel', value: (k) => k.kernel},
    {key: 'spirv', label: 'SPIR-V', value: (k) => k.spirv, cell: (k) => el('span', {class: 'mono', title: k.spirv}, k.spirv.slice(0, 16))},
    {key: 'input', label: 'Input', value: (k) => k.input},
    ...columns.map((c) => ({key: `stat:${c}`, label: c, numeric: true, value: (k) => k.values[c] ?? null, cell: (k) => k.cells[c] ?? '–'})),
  ], rows, {filterPlaceholder: 'filter kernels'});
  return columns.length ? table
    : el('div', {}, el('p', {class: 'muted'}, 'The device reported no compiled statistics (no VK_KHR_pipeline_executable_properties): SPIR-V hashes only.'), table);
}
