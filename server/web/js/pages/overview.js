// Overview: every GPU with its drivers, last run, verdict, open alerts by kind, failed runs of its last week and the
// regressions fixed lately (each linked to the run it came back at); the latest runs.
import {el, clear, badge} from '../dom.js';
import {get} from '../api.js';
import {buildHash} from '../route.js';
import {countOf, coverageText, formatTime, shortCommit} from '../format.js';

export function verdictBadge(v) {
  if (!v) return badge('no verdict', 'muted');
  return badge(v.verdict === 'fail' ? 'FAIL' : 'PASS', v.verdict === 'fail' ? 'fail' : 'pass');
}

function runLink(run) {
  return el('a', {href: buildHash('runs', [run.id])}, run.id);
}

const WEEK_MS = 7 * 24 * 3600 * 1000;
const SHOWN_FAILURES = 5;

// The GPU's failed runs in the week up to its last run (a quiet week still shows the last failures), newest first.
export function recentFailures(runs, gpuId, lastStartedAt) {
  const until = Date.parse(lastStartedAt);
  return runs.filter((r) => r.gpu.id === gpuId && r.verdict?.verdict === 'fail' && until - Date.parse(r.started_at) <= WEEK_MS);
}

// The run a fixed regression came back at, as detection's note names it ("...; back since run R").
export function backSinceRun(note) {
  return /back since run (\S+)$/.exec(note || '')?.[1] ?? null;
}

function fixedItem(a) {
  const back = backSinceRun(a.note);
  const pct = Number.isFinite(a.delta_pct) ? ` ${a.delta_pct > 0 ? '+' : ''}${a.delta_pct.toFixed(1)}%` : '';
  return el('li', {}, el('a', {href: buildHash('alerts', [], {id: a.id})}, `#${a.id}`), ` ${a.benchmark}${pct} from run `,
    el('a', {href: buildHash('runs', [a.run_id])}, a.run_id),
    back ? [', fixed: back since run ', el('a', {href: buildHash('runs', [back])}, back)] : ', fixed');
}

function gpuCard(g, runs, fixed) {
  const failed = g.last_run ? recentFailures(runs, g.gpu.id, g.last_run.started_at) : [];
  const fixedHere = fixed.filter((a) => a.gpu.id === g.gpu.id);
  const alertKinds = Object.entries(g.open_alerts);
  const last = g.last_run;
  return el('section', {class: 'card gpu-card'},
    el('h2', {}, g.gpu.name),
    el('p', {class: 'muted'}, `${g.gpu.vendor_id}:${g.gpu.device_id} · ${g.gpu.device_type} · ${countOf(g.runs, 'run')}`),
    el('h3', {}, 'Drivers'),
    el('ul', {class: 'plain'}, g.drivers.map((d) =>
      el('li', {}, d.driver, el('span', {class: 'muted'}, ` · ${countOf(d.runs, 'run')}, last ${formatTime(d.last_seen)}`)))),
    el('h3', {}, 'Last run'),
    last ? el('p', {}, verdictBadge(last.verdict), ' ', runLink(last), el('span', {class: 'muted'},
      ` · ${shortCommit(last.commit)} · ${formatTime(last.started_at)} · `), el('span', {class: 'run-coverage'}, coverageText(last)))
      : el('p', {class: 'muted'}, 'none'),
    el('h3', {}, 'Open alerts'),
    alertKinds.length
      ? el('ul', {class: 'plain'}, alertKinds.map(([kind, n]) => el('li', {},
        el('a', {href: buildHash('alerts', [], {gpu_id: g.gpu.id, kind, state: 'open'})}, countOf(n, kind.replaceAll('_', ' '))))))
      : el('p', {class: 'muted'}, 'none'),
    el('h3', {}, 'Failed runs, the week to its last run'),
    failed.length
      ? el('ul', {class: 'plain failed-runs'}, failed.slice(0, SHOWN_FAILURES).map((r) => el('li', {}, verdictBadge(r.verdict), ' ',
        runLink(r), el('span', {class: 'muted'}, ` · ${shortCommit(r.commit)} on ${r.branch} · ${formatTime(r.started_at)} · `),
        countOf(r.verdict.failing_total, 'failing benchmark'))),
      failed.length > SHOWN_FAILURES ? el('li', {class: 'muted'}, `and ${failed.length - SHOWN_FAILURES} more`) : '')
      : el('p', {class: 'muted'}, 'none'),
    fixedHere.length ? [el('h3', {}, 'Regressions fixed lately'), el('ul', {class: 'plain fixed-regressions'}, fixedHere.map(fixedItem))] : '');
}

function failingList(v) {
  if (!v || !v.failing_total) return el('span', {class: 'muted'}, '–');
  return el('span', {}, v.failing.join(', '), v.failing_total > v.failing.length ? ` and ${v.failing_total - v.failing.length} more` : '');
}

export async function render(main) {
  const [data, fixed] = await Promise.all([get('summary', {runs: 100}), get('alerts', {kind: 'regression', state: 'fixed', limit: 20})]);
  clear(main);
  main.append(el('h1', {}, 'Overview'));
  if (!data.gpus.length) {
    main.append(el('p', {}, 'No runs yet. Post one with shaderwatch-bench --post or shaderwatch-server post.'));
    return;
  }
  main.append(el('div', {class: 'cards'}, data.gpus.map((g) => gpuCard(g, data.latest_runs, fixed.alerts))));
  main.append(el('h2', {}, 'Latest runs'),
    el('table', {class: 'data', id: 'latest-runs'},
      el('thead', {}, el('tr', {}, ['Started', 'Run', 'Commit', 'Branch', 'Runner', 'GPU', 'Driver', 'Benchmarks timed', 'Verdict', 'Failing'].map((h) => el('th', {}, h)))),
      el('tbody', {}, data.latest_runs.slice(0, 25).map((r) => el('tr', {},
        el('td', {}, formatTime(r.started_at)),
        el('td', {}, runLink(r)),
        el('td', {class: 'mono'}, shortCommit(r.commit)),
        el('td', {}, r.branch),
        el('td', {}, r.runner),
        el('td', {}, r.gpu.name),
        el('td', {}, `${r.driver.name} ${r.driver.version}`),
        el('td', {class: 'run-coverage'}, coverageText(r)),
        el('td', {}, verdictBadge(r.verdict)),
        el('td', {}, failingList(r.verdict)))))));
}
