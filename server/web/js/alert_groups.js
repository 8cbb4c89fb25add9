// Alerts grouped by kernel and change, pure (tested with node --test): one broken kernel is one card,
// not one per size and mode. A group: one kernel (family/variant) on one GPU, one kind, the same first
// commit; the alerts stay whole inside it (each its size and mode, its own numbers and id for triage).

// vocab: the API's /vocabulary answer, which names the correctness kinds.
export const isCorrectness = (kind, vocab) => vocab.correctness_alert_kinds.includes(kind);

// Groups in the order of their first alert (the API's order: newest first).
export function groupAlerts(alerts) {
  const groups = new Map();
  for (const a of alerts) {
    const kernel = a.kernel, rest = a.config;  // the server reads the name's grammar (server/src/ingest/benchmark_name.h)
    const key = JSON.stringify([kernel, a.gpu.id, a.kind, a.commit]);
    if (!groups.has(key)) groups.set(key, {kernel, gpu: a.gpu, kind: a.kind, commit: a.commit, alerts: []});
    groups.get(key).alerts.push({...a, rest});
  }
  for (const g of groups.values()) {
    g.alerts.sort((x, y) => x.rest.localeCompare(y.rest, 'en', {numeric: true}));
    const states = new Set(g.alerts.map((a) => a.state));
    g.state = states.size === 1 ? g.alerts[0].state : 'mixed';
    g.message = g.alerts.map((a) => a.error_message).find(Boolean) || null;
  }
  return [...groups.values()];
}
