// Alerts: filter by state, kind, cause, GPU and family; one card per kernel and change (its sizes and
// modes listed, each with its numbers and a link to its series), a wrong answer's message and the commit
// it began at, or a performance change's cause and evidence; triage (state + note) of the card's alerts
// with the pasted token, the server's refusal shown as is.
import {el, clear, badge, select} from '../dom.js';
import {get, patchAlert, token, vocabulary} from '../api.js';
import {buildHash} from '../route.js';
import {countOf, formatNs, formatDeltaPct, formatP, formatTime, shortCommit} from '../format.js';
import {groupAlerts, isCorrectness} from '../alert_groups.js';

const FILTERS = ['state', 'kind', 'cause', 'gpu_id', 'family', 'benchmark'];
const PAGE = 200;  // alerts per page, grouped into cards on the page

// A kind's badge from its tone in the API's vocabulary.
const TONE_BADGE = {worse: 'fail', better: 'pass', unclear: 'warn'};

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

// Triage sets every alert of the card to one state and note.
function triageForm(group, states, onDone, status) {
  const state = select(group.state === 'mixed' ? [['mixed', 'mixed'], ...states] : states, group.state, () => {},
    {'aria-label': 'state'});
  const note = el('input', {type: 'text', placeholder: 'note', value: group.alerts[0].note || '', 'aria-label': 'note', size: 40});
  const message = el('span', {class: 'triage-message', role: 'status'}, status || '');
  return el('form', {class: 'triage', onsubmit: async (e) => {
    e.preventDefault();
    if (state.value === 'mixed') return;
    message.textContent = 'saving…';
    message.className = 'triage-message muted';
    try {
      const updated = [];
      for (const a of group.alerts) updated.push(await patchAlert(a.id, state.value, note.value));
      const last = updated[updated.length - 1];
      onDone(updated, `saved: ${last.state} by ${last.state_by}${updated.length > 1 ? ` (${updated.length} alerts)` : ''}`);
    } catch (err) {
      message.textContent = `refused: ${err.message}`;
      message.className = 'triage-message error';
    }
  }}, 'Triage:', state, note, el('button', {type: 'submit'}, 'Save'),
  token() ? '' : el('span', {class: 'muted'}, '(needs a token: paste one at the top right)'), message);
}

// One line per size and mode: its change (or its state) and a link to its series. A change in noise says so first:
// its level hardly moved.
function memberLine(a) {
  const n = a.attribution?.noise;
  const change = n
    ? `run-to-run noise ${n.before_pct.toFixed(2)}% → ${n.after_pct.toFixed(2)}% (x${n.ratio.toFixed(1)}, p ${formatP(a.p_value)}); level ${formatNs(a.before_ns)} → ${formatNs(a.after_ns)}`
    : a.before_ns !== null
    ? `${formatNs(a.before_ns)} → ${formatNs(a.after_ns)} (${formatDeltaPct(a.delta_pct)}, p ${formatP(a.p_value)}, noise ${formatDeltaPct(a.noise_pct)})`
    : '';
  return el('li', {'data-alert': a.id}, el('a', {href: buildHash('series', [a.series_id])}, a.rest || a.benchmark),
    change ? ` ${change}` : '', el('span', {class: 'muted'}, ` #${a.id}`));
}

function alertCard(g, vocab) {
  const states = vocab.alert_states;
  const box = el('article', {class: 'alert', 'data-alert': g.alerts[0].id, 'data-alerts': g.alerts.map((a) => a.id).join(',')});
  const first = g.alerts[0];
  const fill = (status) => {
    clear(box);
    box.dataset.state = g.state;
    const correctness = isCorrectness(g.kind, vocab);
    box.append(
      el('header', {},
        el('strong', {class: 'kernel'}, g.kernel), badge(g.kind.replaceAll('_', ' '), TONE_BADGE[vocab.alert_kind_tones[g.kind]] || 'muted'),
        badge(g.state, [...vocab.open_alert_states, 'mixed'].includes(g.state) ? 'warn' : 'muted'),
        el('span', {class: 'muted'}, `on ${g.gpu.name} · ${countOf(g.alerts.length, 'size and mode').replace('size and modes', 'sizes and modes')}`)),
      el('dl', {},
        correctness
          ? [el('dt', {}, 'wrong answer'), el('dd', {class: 'wrong-answer'}, `since ${shortCommit(g.commit)}`,
            g.message ? [': ', el('span', {class: 'mono'}, g.message)] : '')]
          : [el('dt', {}, 'cause'), el('dd', {}, first.cause)],
        el('dt', {}, 'first run'), el('dd', {}, el('a', {href: buildHash('runs', [first.run_id])}, first.run_id),
          ` · commit ${shortCommit(first.commit)} · driver ${first.driver} · ${formatTime(first.started_at)}`),
        el('dt', {}, correctness ? 'sizes and modes' : 'change'), el('dd', {}, el('ul', {class: 'plain members'}, g.alerts.map(memberLine))),
        correctness ? '' : [el('dt', {}, 'evidence'), el('dd', {}, evidenceBlock(first.attribution))],
        first.note ? [el('dt', {}, 'note'), el('dd', {}, first.note, first.state_by ? ` (${first.state_by})` : '')] : ''),
      triageForm(g, states, (updated, message) => {
        g.alerts = g.alerts.map((a, i) => ({...a, ...updated[i], rest: a.rest}));
        g.state = updated[updated.length - 1].state;
        fill(message);
      }, status));
  };
  fill();
  return box;
}

// Why a list can be empty when a run failed: alerts are main's, open ones only under "open", and a run's own
// failures are on its page.
export function emptyAlertsNote(q) {
  const filtered = FILTERS.some((f) => q[f]);
  return el('div', {class: 'muted empty-alerts'},
    el('p', {}, filtered ? 'No alerts match these filters.' : 'No alerts yet.'),
    el('ul', {},
      el('li', {}, 'A failed run need not raise an alert: a branch\'s slowdowns and correctness failures fail its verdict ' +
        'against main at the merge base, and only main\'s history raises alerts. The run\'s page says why it failed.'),
      q.state === 'open' ? el('li', {}, 'Open means new or acknowledged: a regression its revert fixed is "fixed" (state any shows it).') : '',
      el('li', {}, 'A slowdown in one run of main is an alert at that run; a change the detector sees over several runs is one once ' +
        'enough runs confirm it.')));
}

export async function render(main, route, stale) {
  const q = route.query;
  const [vocab, gpus] = await Promise.all([vocabulary(), get('gpus')]);
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
      el('label', {}, 'state', select([any, ['open', `open (${vocab.open_alert_states.join(', ')})`], ...vocab.alert_states], q.state, (v) => go({state: v}))),
      el('label', {}, 'kind', select([any, ...vocab.alert_kinds], q.kind, (v) => go({kind: v}))),
      el('label', {}, 'cause', select([any, ...vocab.causes], q.cause, (v) => go({cause: v}))),
      el('label', {}, 'GPU', select([any, ...gpus.gpus.map((g) => [g.id, g.name])], q.gpu_id, (v) => go({gpu_id: v}))),
      el('label', {}, 'family', el('input', {type: 'text', value: q.family || '', placeholder: 'e.g. lum',
        onchange: (e) => go({family: e.target.value.trim()})})),
      q.benchmark ? el('span', {}, `benchmark ${q.benchmark} `, el('a', {href: buildHash('alerts', [], {...q, benchmark: undefined})}, '×')) : ''),
    el('p', {class: 'muted', id: 'alert-count'}));
  const groups = groupAlerts(answer.alerts);
  main.querySelector('#alert-count').textContent =
    `${countOf(answer.total, 'alert')}${answer.alerts.length ? `, ${countOf(groups.length, 'card')} on this page (one per kernel and change)` : ''}`;
  main.append(el('div', {id: 'alerts'}, groups.map((g) => alertCard(g, vocab))));
  if (!answer.alerts.length) main.append(emptyAlertsNote(q));
  const nav = el('p', {});
  if (offset > 0) nav.append(el('a', {href: buildHash('alerts', [], {...q, offset: Math.max(0, offset - PAGE)})}, '← newer'), ' ');
  if (answer.next_offset !== null && answer.next_offset !== undefined)
    nav.append(el('a', {href: buildHash('alerts', [], {...q, offset: answer.next_offset})}, 'older →'));
  main.append(nav);
}
