// Overview: every GPU with its drivers, last run, verdict and open alerts by kind; the latest runs.
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

function gpuCard(g) {
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
        el('a', {href: buildHash('alerts', [], {gpu_id: g.gpu.id, kind, state: 'open'})}, `${n} ${kind.replaceAll('_', ' ')}`))))
      : el('p', {class: 'muted'}, 'none'));
}

function failingList(v) {
  if (!v || !v.failing_total) return el('span', {class: 'muted'}, '–');
  return el('span', {}, v.failing.join(', '), v.failing_total > v.failing.length ? ` and ${v.failing_total - v.failing.length} more` : '');
}

export async function render(main) {
  const data = await get('summary', {runs: 25});
  clear(main);
  main.append(el('h1', {}, 'Overview'));
  if (!data.gpus.length) {
    main.append(el('p', {}, 'No runs yet. Post one with shaderwatch-bench --post or shaderwatch-server post.'));
    return;
  }
  main.append(el('div', {class: 'cards'}, data.gpus.map(gpuCard)));
  main.append(el('h2', {}, 'Latest runs'),
    el('table', {class: 'data', id: 'latest-runs'},
      el('thead', {}, el('tr', {}, ['Started', 'Run', 'Commit', 'Branch', 'Runner', 'GPU', 'Driver', 'Benchmarks', 'Verdict', 'Failing'].map((h) => el('th', {}, h)))),
      el('tbody', {}, data.latest_runs.map((r) => el('tr', {},
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
