// Formatting of numbers, times and outcomes for display: pure functions (tested with node --test).

export function formatNs(ns) {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return '–';
  const abs = Math.abs(ns);
  if (abs >= 1e9) return `${(ns / 1e9).toPrecision(4)} s`;
  if (abs >= 1e6) return `${(ns / 1e6).toPrecision(4)} ms`;
  if (abs >= 1e3) return `${(ns / 1e3).toPrecision(4)} µs`;
  return `${ns.toPrecision(4)} ns`;
}

// A signed percentage: +3.12%, -0.50%, 0.00%.
export function formatDeltaPct(pct, digits = 2) {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '–';
  const s = pct.toFixed(digits);
  return pct > 0 && Number(s) !== 0 ? `+${s}%` : `${s}%`;
}

export function formatPct(pct, digits = 1) {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '–';
  return `${pct.toFixed(digits)}%`;
}

export function formatNumber(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return Number(x.toPrecision(digits)).toString();
}

export function formatP(p) {
  if (p === null || p === undefined || !Number.isFinite(p)) return '–';
  return p < 1e-4 ? p.toExponential(1) : p.toFixed(4);
}

// ISO 8601 to "2026-11-21 04:33" in UTC (what CI logs show), or the input when it is not a date.
export function formatTime(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return iso || '–';
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

export function shortCommit(commit) {
  return typeof commit === 'string' && /^[0-9a-f]{12,}$/i.test(commit) ? commit.slice(0, 10) : commit;
}

// The spread of a run's samples, (p75 - p25) / median, in percent; null where the run carries none.
export function spreadPct(p25, p75, median) {
  if (![p25, p75, median].every(Number.isFinite) || median <= 0) return null;
  return (100 * (p75 - p25)) / median;
}

// What a person reads for an outcome the server names.
const OUTCOME_LABELS = {
  pass: 'PASS', flake: 'FLAKE', fail: 'FAIL', xfail: 'XFAIL', xpass: 'XPASS', skip: 'SKIP', unsupported: 'UNSUPPORTED',
};
export function outcomeLabel(outcome) {
  return OUTCOME_LABELS[outcome] || String(outcome).toUpperCase();
}

// The benchmark measured in the other mode (hot <-> cold), or null where the name has no mode.
export function otherMode(benchmark) {
  const m = /^(.*\/)(hot|cold)$/.exec(benchmark || '');
  return m ? m[1] + (m[2] === 'hot' ? 'cold' : 'hot') : null;
}

// Geometric mean of ratios (contender / base), as a signed percentage.
export function geomeanDeltaPct(ratios) {
  const logs = ratios.filter((r) => Number.isFinite(r) && r > 0).map(Math.log);
  if (!logs.length) return null;
  return 100 * (Math.exp(logs.reduce((a, b) => a + b, 0) / logs.length) - 1);
}

// "1 run", "2 runs": a count with its noun.
export function countOf(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

// A run's coverage, in the timed benchmarks the server counts (a run page's table adds the untimed ones: expected
// failures, skips): "340 timed" for the GPU's whole set, "34 of 340 timed" for a partial run.
export function coverageText(run) {
  const n = run?.benchmarks, of = run?.gpu_benchmarks;
  if (!Number.isFinite(n)) return '';
  return Number.isFinite(of) && of > n ? `${n} of ${of} timed` : `${n} timed`;
}
