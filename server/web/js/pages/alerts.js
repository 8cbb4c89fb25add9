// Alerts: filter by state, kind, cause, GPU and family; each alert with its attribution evidence and a
// link to its series; triage (state + note) with the pasted token, the server's refusal shown as is.
import {el, clear, badge, select} from '../dom.js';
import {get, patchAlert, token} from '../api.js';
import {buildHash} from '../route.js';
import {formatNs, formatDeltaPct, formatP, formatTime, shortCommit} from '../format.js';

const FILTERS = ['state', 'kind', 'cause', 'gpu_id', 'family', 'benchmark'];
const PAGE = 50;

const KIND_BADGE = {regression: 'fail', correctness_failure: 'fail', correctness_regression: 'fail',
  improvement: 'pass', ambiguous: 'warn'};

// The attribution evidence, whatever its shape, as text: objects as definition lists, lists of objects
// as one line each.
function evidence(value) {
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) {
    if (!value.length) return '–';
    if (value.every((v) => v === null || typeof v !== 'object')) return value.join(', ');
    return el('ul', {class: 'plain'}, value.map((v) => el('li', {}, typeof v === 'object' && v !== null
      ? Object.entries(v).map(([k, x]) => `${k.replaceAll('_', ' ')} ${typeof x === 'object' ? JSON.stringify(x) : x}`).join(' · ')
      : String(v))));
  }
  return el('dl', {}, Object.entries(value).flatMap(([k, v]) => [el('dt', {}, k.replaceAll('_', ' ')), el('dd', {}, evidence(v))]));
}

// The attribution's one-line summary in view, the whole evidence a click away.
function evidenceBlock(attribution) {
  const ev = attribution?.evidence;  // a list of sentences: joined, or they run together
  const line = (Array.isArray(ev) ? ev.join('; ') : ev) || attribution?.summary || '';
  return el('details', {}, el('summary', {}, line || 'evidence'), evidence(attribution));
}

function triageForm(alert, states, onDone, status) {
  const state = select(states, alert.state, () => {}, {'aria-label': 'state'});
  const note = el('input', {type: 'text', placeholder: 'note', value: alert.note || '', 'aria-label': 'note', size: 40});
  const message = el('span', {class: 'triage-message', role: 'status'}, status || '');
  return el('form', {class: 'triage', onsubmit: async (e) => {
    e.preventDefault();
    message.textContent = 'saving…';
    message.className = 'triage-message muted';
    try {
      const updated = await patchAlert(alert.id, state.value, note.value);
      onDone(updated, `saved: ${updated.state} by ${updated.state_by}`);
    } catch (err) {
      message.textContent = `refused: ${err.message}`;
      message.className = 'triage-message error';
    }
  }}, 'Triage:', state, note, el('button', {type: 'submit'}, 'Save'),
  token() ? '' : el('span', {class: 'muted'}, '(needs a token: paste one at the top right)'), message);
}

function alertCard(a, states) {
  const box = el('article', {class: 'alert', 'data-alert': a.id});
  const fill = (alert, status) => {
    clear(box);
    box.dataset.state = alert.state;
    box.append(
      el('header', {},
        el('strong', {}, `#${alert.id}`), badge(alert.kind.replaceAll('_', ' '), KIND_BADGE[alert.kind] || 'muted'),
        badge(alert.state, ['new', 'acknowledged'].includes(alert.state) ? 'warn' : 'muted'),
        el('a', {href: buildHash('series', [alert.series_id])}, alert.benchmark),
        el('span', {class: 'muted'}, `on ${alert.gpu.name}`)),
      el('dl', {},
        el('dt', {}, 'change'), el('dd', {}, alert.before_ns !== null
          ? `${formatNs(alert.before_ns)} → ${formatNs(alert.after_ns)} (${formatDeltaPct(alert.delta_pct)}, p ${formatP(alert.p_value)}, noise ${formatDeltaPct(alert.noise_pct)})`
          : '–'),
        el('dt', {}, 'first run'), el('dd', {}, el('a', {href: buildHash('runs', [alert.run_id])}, alert.run_id),
          ` · commit ${shortCommit(alert.commit)} · driver ${alert.driver} · ${formatTime(alert.started_at)}`),
        el('dt', {}, 'cause'), el('dd', {}, alert.cause),
        el('dt', {}, 'evidence'), el('dd', {}, evidenceBlock(alert.attribution)),
        alert.note ? [el('dt', {}, 'note'), el('dd', {}, alert.note, alert.state_by ? ` (${alert.state_by})` : '')] : ''),
      triageForm(alert, states, fill, status));
  };
  fill(a);
  return box;
}

export async function render(main, route, stale) {
  const q = route.query;
  const [vocab, gpus] = await Promise.all([get('vocabulary'), get('gpus')]);
  const offset = Number(q.offset) || 0;
  const answer = q.id
    ? {alerts: [await get(`alerts/${encodeURIComponent(q.id)}`)], total: 1, next_offset: null}
    : await get('alerts', {...Object.fromEntries(FILTERS.map((f) => [f, q[f]])), limit: PAGE, offset});
  if (stale()) return;
  clear(main);
  const go = (changes) => { location.hash = buildHash('alerts', [], {...q, id: undefined, offset: undefined, ...changes}); };
  const any = ['', 'any'];
  main.append(el('h1', {}, 'Alerts'),
    el('div', {class: 'filters'},
      el('label', {}, 'state', select([any, ['open', 'open (new, acknowledged)'], ...vocab.alert_states], q.state, (v) => go({state: v}))),
      el('label', {}, 'kind', select([any, ...vocab.alert_kinds], q.kind, (v) => go({kind: v}))),
      el('label', {}, 'cause', select([any, ...vocab.causes], q.cause, (v) => go({cause: v}))),
      el('label', {}, 'GPU', select([any, ...gpus.gpus.map((g) => [g.id, g.name])], q.gpu_id, (v) => go({gpu_id: v}))),
      el('label', {}, 'family', el('input', {type: 'text', value: q.family || '', placeholder: 'e.g. lum',
        onchange: (e) => go({family: e.target.value.trim()})})),
      q.benchmark ? el('span', {}, `benchmark ${q.benchmark} `, el('a', {href: buildHash('alerts', [], {...q, benchmark: undefined})}, '×')) : ''),
    el('p', {class: 'muted', id: 'alert-count'}, `${answer.total} alerts`));
  const states = vocab.alert_states;
  main.append(el('div', {id: 'alerts'}, answer.alerts.map((a) => alertCard(a, states))));
  if (!answer.alerts.length) main.append(el('p', {class: 'muted'}, 'No alerts match.'));
  const nav = el('p', {});
  if (offset > 0) nav.append(el('a', {href: buildHash('alerts', [], {...q, offset: Math.max(0, offset - PAGE)})}, '← newer'), ' ');
  if (answer.next_offset !== null && answer.next_offset !== undefined)
    nav.append(el('a', {href: buildHash('alerts', [], {...q, offset: answer.next_offset})}, 'older →'));
  main.append(nav);
}
