// A run: its verdict and every benchmark (median, spread, % of roofline, error/bound, outcome), sortable and
// filterable; a form to compare it with another run; what the driver compiled of each kernel.
import {el, clear, badge, safeLink, select} from '../dom.js';
import {get} from '../api.js';
import {buildHash} from '../route.js';
import {coverageText, formatNs, formatPct, formatNumber, formatTime, shortCommit, spreadPct, outcomeLabel} from '../format.js';
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

// The run "Compare with" proposes: the newest earlier run on the GPU that covers at least as many
// benchmarks (a partial run, one size or a filter, compares over almost nothing), else the newest other.
export function defaultBase(run, siblings) {
  const others = siblings.filter((x) => x.id !== run.id);
  const earlier = others.filter((x) => x.started_at <= run.started_at);
  return (earlier.find((x) => x.benchmarks >= run.benchmarks) || earlier[0] || others[0])?.id ?? null;
}

export function runRows(answer) {
  const measured = answer.points.map((p) => ({
    benchmark: p.benchmark, series_id: p.series_id, median: p.value_ns,
    spread: spreadPct(p.p25_ns, p.p75_ns, p.value_ns), peak: p.pct_of_roofline ?? p.pct_of_copy_peak ?? null,
    err: p.err_bound_ratio ?? null, outcome: p.outcome || (p.errors > 0 ? 'fail' : 'pass'),
    reps: p.repetitions, message: p.error_message}));
  const others = (answer.not_measured || []).map((p) => ({benchmark: p.benchmark, series_id: null, median: null,
    spread: null, peak: null, err: null, outcome: p.outcome, reps: null, message: p.error_message}));
  return [...measured, ...others];
}

// What a single-run slowdown was judged against, as the reports say it.
function baselineText(s) {
  if (s.against === 'level') return `its level (median of ${s.baseline_runs} runs)`;
  return s.baseline_runs === 1 ? 'the previous run' : `the previous ${s.baseline_runs} runs (median)`;
}

export async function render(main, route, stale) {
  const id = route.args[0];
  const [answer, verdict] = await Promise.all([get(`runs/${encodeURIComponent(id)}`), get(`runs/${encodeURIComponent(id)}/verdict`)]);
  const siblings = await get('runs', {gpu_id: answer.run.gpu.id, limit: 50});
  if (stale()) return;
  const r = answer.run;
  clear(main);
  main.append(el('h1', {}, `Run ${r.id} `, verdictBadge(verdict)),
    el('p', {}, `${r.gpu.name} · ${r.driver.name} ${r.driver.version} · commit `, el('span', {class: 'mono'}, shortCommit(r.commit)),
      ` · ${r.branch} · runner ${r.runner} · ${formatTime(r.started_at)} · `, el('span', {class: 'run-coverage'}, coverageText(r)),
      ' · ', safeLink(r.job_url, 'CI job')));
  // What the verdict could see: a new series' pass says little, and the page says so.
  if (verdict.coverage) main.append(el('p', {class: 'muted coverage'}, verdict.coverage.line));
  // A noisier runner (or driver) is named, never failed on: its series' noise alerts are in the alert list.
  if (verdict.noise) main.append(el('p', {class: 'noise-note'}, verdict.noise.line));
  const problems = [
    ...verdict.correctness.map((c) => [el('a', {href: buildHash('series', [c.series_id])}, c.benchmark), `: ${c.kind}: ${c.error_message}`]),
    ...verdict.regressions.map((a) => [el('a', {href: buildHash('alerts', [], {id: a.id})}, `#${a.id}`), ` ${a.benchmark}: regression`]),
    ...(verdict.slowdowns || []).map((s) => [el('a', {href: buildHash('series', [s.series_id])}, s.benchmark),
      `: ${formatNumber(s.value_ns / s.baseline_ns, 3)}x slower than ${baselineText(s)}, beyond any noise` +
      ` (the gate's floor: +${formatNumber(s.floor_pct, 3)}%)`]),
    ...verdict.suspects.map((s) => [el('a', {href: buildHash('series', [s.series_id])}, s.benchmark), `: suspect (z ${formatNumber(s.z, 2)})`]),
  ];
  if (problems.length) main.append(el('ul', {class: 'problems'}, problems.map((p) => el('li', {}, p))));
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
    {key: 'peak', label: memoryColumnLabel(answer.points), numeric: true, value: (x) => x.peak, cell: (x) => formatPct(x.peak)},
    {key: 'err', label: 'err / bound', numeric: true, value: (x) => x.err, cell: (x) => formatNumber(x.err)},
    {key: 'outcome', label: 'Status', value: (x) => outcomeLabel(x.outcome),
      cell: (x) => [badge(outcomeLabel(x.outcome), OUTCOME_BADGE[x.outcome] || 'muted'), x.message ? el('span', {class: 'muted'}, ` ${x.message}`) : '']},
    {key: 'reps', label: 'Reps', numeric: true, value: (x) => x.reps},
  ];
  main.append(el('h2', {}, 'Benchmarks'), dataTable(columns, runRows(answer), {
    filterPlaceholder: 'filter benchmarks', rowClass: (x) => (x.outcome === 'fail' ? 'row-fail' : null)}));
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
