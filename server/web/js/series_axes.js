// The series chart's axes, pure (tested with node --test): x by run order (every run one step, in time
// order across the shown GPUs) or by time, ranges that stay sane for one to three points and keep every
// point and band in view, and one time unit per y axis.

// Each series' x positions: its points' ranks among every shown point, by start time. Runs of one series that
// started at the same time are each their own x (the second is no longer drawn over the first); the same time
// in two series (a multi-GPU run's devices) shares one.
export function runOrderXs(seriesTimes) {
  const keyed = seriesTimes.map((times) => {
    const seen = new Map();
    return times.map((t) => {
      const n = seen.get(t) ?? 0;
      seen.set(t, n + 1);
      return [t, n];
    });
  });
  const all = [...new Map(keyed.flat().map(([t, n]) => [`${t}:${n}`, [t, n]])).values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const rank = new Map(all.map(([t, n], i) => [`${t}:${n}`, i]));
  return keyed.map((points) => points.map(([t, n]) => rank.get(`${t}:${n}`)));
}

// [min, max] of x with room around the points: half a step by run order; by time 5% of the span, at
// least an hour (one point on a time axis once spread over two years).
export function xRange(xs, byTime) {
  const finite = xs.filter(Number.isFinite);
  if (!finite.length) return [0, 1];
  const lo = Math.min(...finite), hi = Math.max(...finite);
  const pad = byTime ? Math.max(3600, 0.05 * (hi - lo)) : 0.5;
  return [lo - pad, hi + pad];
}

// [min, max] of y over every value shown (medians, bands, failures, overlays), padded by 8% of the span
// or 2% of the largest value, whichever is more, and never below zero.
export function yRange(values) {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return [0, 1];
  const lo = Math.min(...finite), hi = Math.max(...finite);
  const pad = Math.max(0.08 * (hi - lo), 0.02 * Math.abs(hi), 1e-9);
  return [Math.max(0, lo - pad), hi + pad];
}

// One unit for a whole axis, from its largest value: ns, µs, ms or s.
export function nsUnit(maxNs) {
  if (maxNs >= 1e9) return {div: 1e9, suffix: 's'};
  if (maxNs >= 1e6) return {div: 1e6, suffix: 'ms'};
  if (maxNs >= 1e3) return {div: 1e3, suffix: 'µs'};
  return {div: 1, suffix: 'ns'};
}

// Tick labels in one unit, with the fewest decimals that tell every tick exactly (2.5 µs steps: 1).
export function axisLabels(ticksNs, unit) {
  const vals = ticksNs.map((v) => v / unit.div);
  let decimals = 0;
  while (decimals < 4 && !vals.every((v) => Math.abs(v * 10 ** decimals - Math.round(v * 10 ** decimals)) < 1e-6)) decimals++;
  return vals.map((v) => v.toFixed(decimals));
}

// Nulls between two values filled by linear interpolation (a band over joined data would break at every
// x of another series); nulls before the first and after the last value stay.
export function fillGaps(values) {
  const out = [...values];
  let prev = -1;
  for (let i = 0; i < out.length; i++) {
    if (out[i] === null || out[i] === undefined) continue;
    for (let j = prev + 1; prev >= 0 && j < i; j++) out[j] = out[prev] + ((out[i] - out[prev]) * (j - prev)) / (i - prev);
    prev = i;
  }
  return out;
}
