// The GPU comparison's choices, pure (tested with node --test): the default view, the variants' order,
// the bar scale, and the one memory figure a ranking row shows.

// The seeds' chart: the luminance reductions at 1920x1080, back to back; else the first on offer.
export const DEFAULT_FAMILY = 'lum', DEFAULT_CONFIG = '1920x1080/hot';
export function defaultView(groups, family, config) {
  const families = [...new Set(groups.map((g) => g.family))].sort();
  const f = families.includes(family) ? family : families.includes(DEFAULT_FAMILY) ? DEFAULT_FAMILY : families[0];
  const configs = groups.filter((g) => g.family === f).map((g) => g.config);
  const c = configs.includes(config) ? config : configs.includes(DEFAULT_CONFIG) ? DEFAULT_CONFIG : configs[0];
  return {families, family: f, configs, config: c};
}

// Variants fastest first: by their least time on any GPU, then by name.
export function variantsByTime(group) {
  const best = new Map();
  for (const g of group.by_gpu)
    for (const r of g.ranking) best.set(r.variant, Math.min(best.get(r.variant) ?? Infinity, r.value_ns));
  return [...best.keys()].sort((a, b) => best.get(a) - best.get(b) || a.localeCompare(b));
}

// Times spanning over 10x squash the fast bars on a linear scale: log is offered there.
export function spansDecade(group) {
  const times = group.by_gpu.flatMap((g) => g.ranking.map((r) => r.value_ns)).filter((t) => t > 0);
  return times.length > 1 && Math.max(...times) / Math.min(...times) > 10;
}

// A bar's length in % of the widest, linear or log (the fastest at a tenth of the width on log).
export function barWidthPct(value, min, max, log) {
  if (!(value > 0) || !(max > 0)) return 0.5;
  if (!log || !(min > 0) || max / min <= 1) return Math.max(0.5, (70 * value) / max);
  return 7 + (63 * Math.log(value / min)) / Math.log(max / min);
}

// "97.7% of roofline", or for runs from before it "112.0% of copy peak" (another figure: bytes read +
// written against the copy rate), never the two under one name; null where a row has neither.
export function memoryFigure(row, formatPct) {
  if (Number.isFinite(row.pct_of_roofline)) return `${formatPct(row.pct_of_roofline)} of roofline`;
  if (Number.isFinite(row.pct_of_copy_peak)) return `${formatPct(row.pct_of_copy_peak)} of copy peak`;
  return null;
}
