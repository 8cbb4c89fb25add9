// GPU comparison (the seeds' chart): for one commit, a kernel family at one size and mode, each
// variant's time on every GPU as grouped bars with % of peak beside it; flips (an order that differs
// between two GPUs, beyond both series' noise) highlighted.
import {el, clear, select} from '../dom.js';
import {get} from '../api.js';
import {buildHash} from '../route.js';
import {formatNs, formatPct, shortCommit} from '../format.js';

// Commits of the latest runs, those run on the most GPUs first, then the newest.
export function commitsByCoverage(runs) {
  const byCommit = new Map();
  runs.forEach((r, i) => {
    const c = byCommit.get(r.commit) || {commit: r.commit, gpus: new Set(), newest: i};
    c.gpus.add(r.gpu.id);
    byCommit.set(r.commit, c);
  });
  return [...byCommit.values()].sort((a, b) => b.gpus.size - a.gpus.size || a.newest - b.newest);
}

function bars(group, gpuIndex) {
  const max = Math.max(...group.by_gpu.flatMap((g) => g.ranking.map((r) => r.value_ns)));
  const variants = [...new Set(group.by_gpu.flatMap((g) => g.ranking.map((r) => r.variant)))].sort();
  const flipped = new Set(group.flips.flatMap((f) => [f.faster_on_a, f.faster_on_b]));
  const rows = [];
  for (const v of variants) {
    rows.push(el('div', {class: flipped.has(v) ? 'bar-label flip' : 'bar-label'}, v, flipped.has(v) ? ' ⇄' : ''));
    rows.push(el('div', {class: 'bar-group', 'data-variant': v}, group.by_gpu.map((g) => {
      const r = g.ranking.find((x) => x.variant === v);
      if (!r) return el('div', {class: 'bar-line muted'}, `${g.gpu.name}: –`);
      const bar = el('span', {class: `bar gpu-${gpuIndex.get(g.gpu.id) % 6}`});
      bar.style.width = `${Math.max(0.5, (70 * r.value_ns) / max)}%`;
      return el('div', {class: 'bar-line', 'data-gpu': g.gpu.name}, bar,
        `${formatNs(r.value_ns)} · ${formatPct(r.pct_of_peak)} of peak · #${r.rank} on ${g.gpu.name}`);
    })));
  }
  return el('div', {class: 'bars'}, rows);
}

function flipList(group) {
  if (!group.flips.length) return el('p', {class: 'muted'}, 'No flips: every GPU ranks these variants alike (beyond noise).');
  return el('ul', {class: 'flips'}, group.flips.map((f) => el('li', {},
    `${f.faster_on_a} beats ${f.faster_on_b} on ${f.gpu_a} (by ${formatPct(f.gap_on_a_pct)}), `,
    `but ${f.faster_on_b} beats ${f.faster_on_a} on ${f.gpu_b} (by ${formatPct(f.gap_on_b_pct)})`)));
}

export async function render(main, route, stale) {
  const q = route.query;
  const runs = await get('runs', {limit: 300});
  const commits = commitsByCoverage(runs.runs);
  if (stale()) return;
  clear(main);
  main.append(el('h1', {}, 'GPU comparison'));
  if (!commits.length) {
    main.append(el('p', {}, 'No runs yet.'));
    return;
  }
  const commit = q.commit || commits[0].commit;
  const answer = await get('rankings', {commit});
  if (stale()) return;
  const families = [...new Set(answer.groups.map((g) => g.family))].sort();
  const family = families.includes(q.family) ? q.family : families[0];
  const configs = answer.groups.filter((g) => g.family === family).map((g) => g.config);
  const config = configs.includes(q.config) ? q.config : configs[0];
  const group = answer.groups.find((g) => g.family === family && g.config === config);
  const go = (changes) => { location.hash = buildHash('gpus', [], {commit, family, config, ...changes}); };
  main.append(el('div', {class: 'filters'},
    el('label', {}, 'commit', select(commits.map((c) => [c.commit, `${shortCommit(c.commit)} (${c.gpus.size} GPUs)`]), commit,
      (v) => go({commit: v, family: undefined, config: undefined}))),
    el('label', {}, 'family', select(families, family, (v) => go({family: v, config: undefined}))),
    el('label', {}, 'size and mode', select(configs, config, (v) => go({config: v})))));
  if (!group) {
    main.append(el('p', {class: 'muted'}, 'No measured results at this commit.'));
    return;
  }
  const gpuIndex = new Map(group.by_gpu.map((g, i) => [g.gpu.id, i]));
  main.append(el('p', {id: 'gpu-legend'}, group.by_gpu.map((g) => el('span', {class: 'gpu-name'},
    el('span', {class: `legend-swatch gpu-${gpuIndex.get(g.gpu.id) % 6}`}), g.gpu.name, ' ',
    el('a', {class: 'muted', href: buildHash('runs', [g.run_id])}, `(run ${g.run_id})`), '  '))));
  main.append(el('h2', {}, `${family} · ${config}: time per variant, shorter is faster`), bars(group, gpuIndex),
    el('h2', {}, 'Flips'), flipList(group),
    el('h2', {}, 'Fastest GPU per variant'),
    el('ul', {}, group.gpu_order.map((o) => el('li', {}, `${o.variant}: `,
      o.fastest_first.map((x) => `${x.gpu} ${formatNs(x.value_ns)}`).join(' < ')))));
}
