// GPU comparison (the seeds' chart): for one commit, a kernel family at one size and mode (by default the
// luminance reductions at 1920x1080), each variant's time on every GPU as grouped bars, fastest first,
// with % of roofline beside it; flips (an order that differs between two GPUs, beyond both series'
// noise, between variants of one operation) highlighted; the fastest GPU per variant, or a tie.
import {el, clear, select} from '../dom.js';
import {get} from '../api.js';
import {buildHash} from '../route.js';
import {formatNs, formatPct, shortCommit} from '../format.js';
import {barWidthPct, defaultView, memoryFigure, spansDecade, variantsByTime} from '../ranking.js';

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

function bars(group, gpuIndex, log) {
  const times = group.by_gpu.flatMap((g) => g.ranking.map((r) => r.value_ns));
  const max = Math.max(...times), min = Math.min(...times);
  const flipped = new Set(group.flips.flatMap((f) => [f.faster_on_a, f.faster_on_b]));
  const rows = [];
  for (const v of variantsByTime(group)) {
    rows.push(el('div', {class: flipped.has(v) ? 'bar-label flip' : 'bar-label'}, v, flipped.has(v) ? ' ⇄' : ''));
    rows.push(el('div', {class: 'bar-group', 'data-variant': v}, group.by_gpu.map((g) => {
      const r = g.ranking.find((x) => x.variant === v);
      if (!r) return el('div', {class: 'bar-line muted'}, `${g.gpu.name}: –`);
      const bar = el('span', {class: `bar gpu-${gpuIndex.get(g.gpu.id) % 6}`});
      bar.style.width = `${barWidthPct(r.value_ns, min, max, log)}%`;
      const memory = memoryFigure(r, formatPct);
      return el('div', {class: 'bar-line', 'data-gpu': g.gpu.name}, bar,
        [formatNs(r.value_ns), memory, `#${r.rank} on ${g.gpu.name}`].filter(Boolean).join(' · '));
    })));
  }
  return el('div', {class: 'bars'}, rows);
}

function flipList(group) {
  if (!group.flips.length) return el('p', {class: 'muted'}, 'No flips: every GPU ranks these variants alike (beyond noise).');
  return el('ul', {class: 'flips'}, group.flips.map((f) => el('li', {}, `${f.operation}: `,
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
  const {families, family, configs, config} = defaultView(answer.groups, q.family, q.config);
  const group = answer.groups.find((g) => g.family === family && g.config === config);
  const log = q.scale === 'log' && group && spansDecade(group);
  const go = (changes) => { location.hash = buildHash('gpus', [], {commit, family, config, scale: q.scale, ...changes}); };
  main.append(el('div', {class: 'filters'},
    el('label', {}, 'commit', select(commits.map((c) => [c.commit, `${shortCommit(c.commit)} (${c.gpus.size} GPUs)`]), commit,
      (v) => go({commit: v, family: undefined, config: undefined}))),
    el('label', {}, 'family', select(families, family, (v) => go({family: v, config: undefined}))),
    el('label', {}, 'size and mode', select(configs, config, (v) => go({config: v}))),
    group && spansDecade(group) ? el('label', {}, 'scale', select([['linear', 'linear'], ['log', 'log (times span over 10x)']],
      log ? 'log' : 'linear', (v) => go({scale: v === 'log' ? 'log' : undefined}))) : ''));
  if (!group) {
    main.append(el('p', {class: 'muted'}, 'No measured results at this commit.'));
    return;
  }
  const gpuIndex = new Map(group.by_gpu.map((g, i) => [g.gpu.id, i]));
  main.append(el('p', {id: 'gpu-legend'}, group.by_gpu.map((g) => el('span', {class: 'gpu-name'},
    el('span', {class: `legend-swatch gpu-${gpuIndex.get(g.gpu.id) % 6}`}), g.gpu.name, ' ',
    el('a', {class: 'muted', href: buildHash('runs', [g.run_id])}, `(run ${g.run_id})`), '  '))));
  const order = new Map(variantsByTime(group).map((v, i) => [v, i]));
  main.append(el('h2', {}, `${family} · ${config}: time per variant, fastest first${log ? ' (log scale)' : ''}`),
    bars(group, gpuIndex, log),
    el('h2', {}, 'Flips'), flipList(group),
    el('h2', {}, 'Fastest GPU per variant'),
    el('ul', {id: 'fastest-gpu'}, [...group.gpu_order].sort((a, b) => order.get(a.variant) - order.get(b.variant))
      .map((o) => el('li', {'data-variant': o.variant}, `${o.variant}: `,
        o.fastest ? `${o.fastest} fastest; ` : o.tie ? 'tie within noise; ' : '',
        o.fastest_first.map((x) => `${x.gpu} ${formatNs(x.value_ns)}`).join(o.tie ? ' ≈ ' : ' < ')))));
}
