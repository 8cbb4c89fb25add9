// Min/max downsampling for drawing: each of `buckets` equal slices of x keeps its first, lowest, highest
// and last point (those with a value), so a spike or a dip in a long series is never drawn away. Returns the kept indices in
// order. Pure (tested with node --test).
export function minMaxIndices(xs, ys, buckets) {
  const n = xs.length;
  if (n <= 4 * buckets || buckets < 1) return Array.from({length: n}, (_, i) => i);
  const x0 = xs[0], span = xs[n - 1] - xs[0] || 1;
  const kept = [];
  let start = 0;
  for (let b = 0; b < buckets && start < n; b++) {
    const limit = b === buckets - 1 ? Infinity : x0 + (span * (b + 1)) / buckets;
    let end = start;
    while (end < n && xs[end] < limit) end++;
    if (end === start) continue;
    let lo = -1, hi = -1;
    for (let i = start; i < end; i++) {
      if (ys[i] === null || ys[i] === undefined) continue;
      if (lo < 0 || ys[i] < ys[lo]) lo = i;
      if (hi < 0 || ys[i] > ys[hi]) hi = i;
    }
    const present = (i) => i >= 0 && ys[i] !== null && ys[i] !== undefined;
    for (const i of new Set([start, lo, hi, end - 1].filter(present).sort((a, b) => a - b))) kept.push(i);
    start = end;
  }
  return kept;
}

export function pick(values, indices) {
  return indices.map((i) => values[i]);
}
