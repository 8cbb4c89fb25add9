// What the driver compiled of a kernel (the API's `compiled` entries: SPIR-V hash, input, statistics), pure
// (tested with node --test): the series page's statistics strip and markers, the run page's table.

// Every statistic name the series' compilations report, in the driver's order.
export function statisticNames(compiled) {
  const names = [];
  for (const c of Object.values(compiled || {}))
    for (const s of c.statistics) if (!names.includes(s.name)) names.push(s.name);
  return names;
}

// Each point's value of one statistic (null where its run did not say).
export function statisticValues(points, compiled, name) {
  return points.map((p) => {
    const c = p.compiled_id === null ? undefined : compiled[p.compiled_id];
    const s = c?.statistics.find((x) => x.name === name);
    return s ? s.value : null;
  });
}

// The statistic the strip shows first: the first that changes along the series, else the first there is.
export function defaultStatistic(points, compiled) {
  const names = statisticNames(compiled);
  const changes = (name) => new Set(statisticValues(points, compiled, name).filter((v) => v !== null)).size > 1;
  return names.find(changes) ?? names[0] ?? null;
}

// A statistics change as people read it: "CS Register Count 16 → 24", from the API's before and after texts
// ("CS Register Count 16; FS Binary Size 512", one value per changed statistic, the same names in order).
export function statisticsChangeText(before, after) {
  const was = before.split('; '), now = after.split('; ');
  return was.map((b, i) => {
    const a = now[i] ?? '';
    const name = b.slice(0, b.lastIndexOf(' '));
    return a.startsWith(`${name} `) ? `${name} ${b.slice(name.length + 1)} → ${a.slice(name.length + 1)}` : `${b} → ${a}`;
  }).join('; ');
}

// A statistic's value as people read it: the drivers report sizes ("Binary Size", "Local Memory Size", ...) in
// bytes, shown in KiB, MiB or GiB from 1 KiB on; counts as they are.
export function statisticText(statistic, value) {
  if (!/Size$/.test(statistic) || !Number.isFinite(value) || Math.abs(value) < 1024) return String(value);
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = value / 1024, u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) { v /= 1024; ++u; }
  return `${Number.isInteger(v) ? v : v.toPrecision(3)} ${units[u]}`;
}

// A run's kernels as table rows: one column per statistic name (the driver's, without the stage), each
// cell the stages' values ("16", "VS 16 · FS 16", "CS 24 · pipeline 2 CS 22"); `values[name]` the largest,
// for sorting.
export function compiledRows(entries) {
  const columns = [];
  const rows = entries.map((k) => {
    const byStatistic = new Map();
    for (const s of k.statistics) {
      if (!columns.includes(s.statistic)) columns.push(s.statistic);
      if (!byStatistic.has(s.statistic)) byStatistic.set(s.statistic, []);
      byStatistic.get(s.statistic).push(s);
    }
    const cells = {}, values = {};
    for (const [statistic, stages] of byStatistic) {
      // A stage by its name less the statistic's: "CS", or "pipeline 2 CS" where two pipelines' stages share one.
      const stage = (s) => s.name.slice(0, s.name.length - s.statistic.length - 1);
      const text = (s) => statisticText(statistic, s.value);
      cells[statistic] = stages.length === 1 ? text(stages[0]) : stages.map((s) => `${stage(s)} ${text(s)}`).join(' · ');
      values[statistic] = Math.max(...stages.map((s) => s.value));
    }
    return {kernel: k.kernel, spirv: k.spirv, input: k.input, cells, values};
  });
  return {columns, rows};
}
