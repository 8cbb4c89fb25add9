// Two runs compared, as compare.py does: per benchmark the delta, p value and verdict; the geomean.
import {el, clear, badge} from '../dom.js';
import {get} from '../api.js';
import {buildHash} from '../route.js';
import {coverageText, formatNs, formatDeltaPct, formatP, formatPct, shortCommit, formatTime} from '../format.js';
import {defaultBase} from './run.js';
import {dataTable} from '../table.js';

const VERDICT_BADGE = {slower: 'fail', faster: 'pass', same: 'muted'};

function runPicker(runs, current, label, name) {
  return el('label', {}, label, el('select', {name}, runs.map((r) =>
    el('option', {value: r.id, selected: r.id === current}, `${r.id} · ${r.gpu.name} · ${shortCommit(r.commit)} · ${formatTime(r.started_at)} · ${coverageText(r)}`))));
}

// The contender's default base: an earlier run of its GPU that covers as much (run.js's defaultBase).
function defaultBaseOf(runs, contenderId) {
  const contender = runs.find((r) => r.id === contenderId);
  return contender ? defaultBase(contender, runs.filter((r) => r.gpu.id === contender.gpu.id)) : runs[1]?.id;
}

export async function render(main, route, stale) {
  const {base, contender} = route.query;
  const recent = await get('runs', {limit: 100});
  if (stale()) return;
  clear(main);
  main.append(el('h1', {}, 'Compare runs'));
  const form = el('form', {class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    location.hash = buildHash('compare', [], {base: form.elements.base.value, contender: form.elements.contender.value});
  }}, runPicker(recent.runs, base ?? defaultBaseOf(recent.runs, contender ?? recent.runs[0]?.id), 'base', 'base'),
  runPicker(recent.runs, contender ?? recent.runs[0]?.id, 'contender', 'contender'), el('button', {type: 'submit'}, 'compare'));
  main.append(form);
  if (!base || !contender) {
    main.append(el('p', {class: 'muted'}, 'Pick two runs.'));
    return;
  }
  const c = await get('compare', {base, contender});
  if (stale()) return;
  main.append(el('p', {id: 'geomean'}, 'geomean ', el('strong', {}, formatDeltaPct(c.geomean_delta_pct)),
    ` over ${c.benchmarks.length} benchmarks · `, el('a', {href: buildHash('runs', [base])}, base), ' → ',
    el('a', {href: buildHash('runs', [contender])}, contender)));
  const columns = [
    {key: 'benchmark', label: 'Benchmark', value: (x) => x.benchmark},
    {key: 'base', label: 'Base', numeric: true, value: (x) => x.base_ns, cell: (x) => formatNs(x.base_ns)},
    {key: 'contender', label: 'Contender', numeric: true, value: (x) => x.contender_ns, cell: (x) => formatNs(x.contender_ns)},
    {key: 'delta', label: 'Δ', numeric: true, value: (x) => x.delta_pct, cell: (x) => formatDeltaPct(x.delta_pct)},
    {key: 'p', label: 'p', numeric: true, value: (x) => x.p_value, cell: (x) => formatP(x.p_value)},
    {key: 'floor', label: 'floor', numeric: true, value: (x) => x.floor_pct, cell: (x) => formatPct(x.floor_pct, 2)},
    {key: 'verdict', label: 'Verdict', value: (x) => x.verdict, cell: (x) => badge(x.verdict, VERDICT_BADGE[x.verdict] || 'muted')},
  ];
  main.append(dataTable(columns, c.benchmarks, {filterPlaceholder: 'filter benchmarks',
    initialSort: {key: 'delta', descending: true}}));
  for (const [key, label] of [['only_in_base', 'Only in base'], ['only_in_contender', 'Only in contender']])
    if (c[key]?.length) main.append(el('h2', {}, label), el('p', {}, c[key].join(', ')));
}
