// Correctness matrix: kernels x (GPU, driver), each cell the kernel's latest result in that column's runs
// (a partial run adds to the column rather than blanking it); each cell links to its history.
import {el, clear} from '../dom.js';
import {get} from '../api.js';
import {buildHash} from '../route.js';
import {outcomeLabel, formatTime} from '../format.js';

export async function render(main, route, stale) {
  const onlyProblems = route.query.only === 'problems';
  const m = await get('correctness', {columns: 12});
  if (stale()) return;
  clear(main);
  main.append(el('h1', {}, 'Correctness'),
    el('p', {id: 'outcome-counts'}, Object.entries(m.counts).map(([k, n]) => el('span', {class: `cell-${k}`}, `${n} ${outcomeLabel(k)}  `)),
      ' · ', el('a', {href: buildHash('correctness', [], {only: onlyProblems ? '' : 'problems'})},
        onlyProblems ? 'show every kernel' : 'show only kernels that are not PASS everywhere')));
  if (!m.columns.length) {
    main.append(el('p', {class: 'muted'}, 'No runs on the main branch yet.'));
    return;
  }
  const rows = onlyProblems ? m.rows.filter((r) => r.cells.some((c) => c && c.outcome !== 'pass')) : m.rows;
  main.append(el('table', {class: 'data matrix'},
    el('thead', {}, el('tr', {}, el('th', {}, 'Kernel'), m.columns.map((c) => el('th', {},
      el('a', {href: buildHash('runs', [c.run_id])}, c.gpu.name), el('br'),
      el('span', {class: 'muted'}, c.driver), el('br'),
      el('span', {class: 'muted'}, formatTime(c.started_at)),
      c.benchmarks_from_older_runs ? [el('br'), el('span', {class: 'muted from-older'}, `${c.benchmarks_from_older_runs} from older runs`)] : '')))),
    el('tbody', {}, rows.map((r) => el('tr', {}, el('td', {}, r.benchmark), r.cells.map((c, ci) => {
      if (!c) return el('td', {class: 'cell muted'}, '–');
      const label = outcomeLabel(c.outcome);
      const older = c.run_id !== m.columns[ci].run_id ? ` (from run ${c.run_id})` : '';
      return el('td', {class: `cell cell-${c.outcome}`, title: (c.message || label) + older, 'data-outcome': c.outcome,
        'data-run': c.run_id},
        c.series_id !== null ? el('a', {href: buildHash('series', [c.series_id])}, label) : label);
    }))))));
}
