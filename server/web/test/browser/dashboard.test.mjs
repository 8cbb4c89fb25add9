// The dashboard in Debian's headless Chromium (puppeteer-core, no downloaded browser) against a real
// shaderwatch-server on 127.0.0.1 seeded through its API. Asserts what a person sees; saves a screenshot
// of each page under SW_ARTIFACTS.
// Env: SW_SERVER_BIN (the server binary), SW_DATA_DIR (the real runs), SW_ARTIFACTS (screenshots),
// CHROMIUM (default /usr/bin/chromium).
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {existsSync, mkdirSync} from 'node:fs';
import {join} from 'node:path';
import puppeteer from 'puppeteer-core';
import {startServer, seed, XSS_NAME, STEPPED, LATENCY_KERNEL, FAILING, BROKEN_KERNEL, NEW_DRIVER, ROOFLINE_COMMIT,
  PARTIAL_RUN, HISTORY, BRANCH_RUN, STEPPED_KERNEL, NEW_SPIRV, REGISTERS, DRIVER_CHANGE_AT, STEP_AT} from './fixture.mjs';

const bin = process.env.SW_SERVER_BIN, dataDir = process.env.SW_DATA_DIR;
const artifacts = process.env.SW_ARTIFACTS || join(process.cwd(), 'dashboard-screenshots');
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
let server, expected, browser;

before(async () => {
  assert.ok(bin && existsSync(bin), `SW_SERVER_BIN must name the server binary (got ${bin})`);
  assert.ok(existsSync(chromium), `${chromium} is missing: install Debian's chromium (ci/install-deps.sh does)`);
  mkdirSync(artifacts, {recursive: true});
  server = await startServer(bin);
  expected = await seed(server.url, server.token, dataDir);
  browser = await puppeteer.launch({executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic']});
});

after(async () => {
  await browser?.close();
  server?.stop();
});

// A page at 1280x900 that records console errors, page errors, CSP violations and dialogs.
async function open(hash, {colorScheme = 'light'} = {}) {
  const page = await browser.newPage();
  await page.setViewport({width: 1280, height: 900});
  await page.emulateMediaFeatures([{name: 'prefers-color-scheme', value: colorScheme}]);
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', async (d) => { problems.push(`dialog: ${d.message()}`); await d.dismiss(); });
  await page.goto(`${server.url}/${hash}`, {waitUntil: 'networkidle0'});
  await page.waitForFunction(() => document.body.dataset.ready, {timeout: 15000});
  return {page, problems};
}

async function shot(page, name) {
  await page.screenshot({path: join(artifacts, `${name}.png`), fullPage: false});
}

async function seriesId(name, gpuName) {
  const res = await fetch(`${server.url}/api/v1/series?benchmark=${encodeURIComponent(name)}`);
  const s = (await res.json()).series.find((x) => x.gpu.name === gpuName);
  assert.ok(s, `no series ${name} on ${gpuName}`);
  return s.id;
}

test('the page is served with a CSP that forbids inline and foreign scripts, and a content-hash ETag', async () => {
  const res = await fetch(`${server.url}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-security-policy'), /default-src 'self'/);
  const etag = res.headers.get('etag');
  assert.ok(etag);
  const again = await fetch(`${server.url}/`, {headers: {'If-None-Match': etag}});
  assert.equal(again.status, 304);
  assert.equal((await fetch(`${server.url}/js/nothing.js`)).status, 404);
});

test('overview: every GPU, the latest runs with verdicts, no console errors', async () => {
  const {page, problems} = await open('#/');
  const cards = await page.$$eval('.gpu-card h2', (hs) => hs.map((h) => h.textContent));
  assert.deepEqual([...cards].sort(), [...expected.gpus].sort());
  const rows = await page.$$eval('#latest-runs tbody tr', (rs) => rs.map((r) => r.textContent));
  assert.ok(rows.length >= 20, `${rows.length} latest runs`);
  assert.match(rows[0], new RegExp(PARTIAL_RUN));
  assert.match(rows[1], /syn-h200-29/);
  assert.match(rows[1], /FAIL/);
  assert.match(rows[1], new RegExp(FAILING.replaceAll('/', '\\/')));
  // Each GPU card keeps the failed runs of its last week (a few, each with its count; the rest counted), the branch's
  // among them.
  const failed = await page.$$eval('.gpu-card ul.failed-runs li', (ls) => ls.map((l) => l.textContent));
  assert.ok(failed.length >= 2 && failed.length <= 6, JSON.stringify(failed));
  assert.match(failed[0], /^FAIL syn-h200-29 · .* on main · .* · \d+ failing benchmarks?$/);
  assert.match(failed[failed.length - 1], /^and \d+ more$/);
  // A regression its revert fixed shows as fixed, linked to the run it came back at.
  const fixed = await page.$$eval('.gpu-card ul.fixed-regressions li', (ls) => ls.map((l) => [l.textContent, [...l.querySelectorAll('a')].map((a) => a.getAttribute('href'))]));
  assert.ok(fixed.length >= 1, JSON.stringify(fixed));
  for (const [text, links] of fixed) {
    assert.match(text, /^#\d+ \S+ [+-]\d+\.\d% from run \S+, fixed(: back since run \S+)?$/, text);
    if (/back since run/.test(text)) assert.equal(links.length, 3, JSON.stringify(links));
  }
  const openAlerts = await page.$$eval('.gpu-card ul.plain a', (as) => as.map((a) => a.textContent).filter((t) => /^\d+ /.test(t)));
  assert.ok(openAlerts.every((t) => /^1 [a-z ]+[^s]$|^\d+ [a-z ]+s$/.test(t)), JSON.stringify(openAlerts));
  await shot(page, '1-overview');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a partial run: its coverage shown, the matrix column kept, "Compare with" skips it', async () => {
  const {page, problems} = await open('#/');
  const h200 = await page.$$eval('.gpu-card', (cs) => cs.map((c) => [c.querySelector('h2').textContent,
    c.querySelector('.run-coverage')?.textContent]));
  const [, coverage] = h200.find(([name]) => name === expected.gpus[0]);
  const m = /^(\d+) of (\d+) timed$/.exec(coverage);
  assert.ok(m && Number(m[1]) < Number(m[2]) / 5, coverage);
  await shot(page, '1b-overview-partial');
  assert.deepEqual(problems, []);
  await page.close();

  const matrix = await (await fetch(`${server.url}/api/v1/correctness?columns=12`)).json();
  const ci = matrix.columns.findIndex((c) => c.run_id === PARTIAL_RUN);
  assert.ok(ci >= 0, JSON.stringify(matrix.columns.map((c) => c.run_id)));
  const filled = matrix.rows.filter((r) => r.cells[ci]).length;
  assert.ok(filled >= 300, `the partial run's column has ${filled} cells`);
  assert.ok(matrix.columns[ci].benchmarks_from_older_runs >= filled - 2 * Number(m[1]), JSON.stringify(matrix.columns[ci]));
  const c = await open('#/correctness');
  const header = await c.page.$$eval('table.matrix thead th', (ths) => ths.map((t) => t.textContent));
  assert.ok(header.some((t) => /from older runs/.test(t)), JSON.stringify(header));
  await shot(c.page, '6b-correctness-partial');
  assert.deepEqual(c.problems, []);
  await c.page.close();

  for (const [id, base] of [[PARTIAL_RUN, `syn-h200-${HISTORY - 1}`], [`syn-h200-${HISTORY - 1}`, `syn-h200-${HISTORY - 2}`]]) {
    const r = await open(`#/runs/${id}`);
    assert.equal(await r.page.$eval('select[aria-label="compare with"]', (s) => s.value), base, id);
    assert.deepEqual(r.problems, []);
    await r.page.close();
  }
});

test('series: every run a point, one marker per driver change, change points, failures in red', async () => {
  const id = await seriesId(STEPPED, expected.gpus[0]);
  const {page, problems} = await open(`#/series/${id}`);
  const chart = await page.$eval(`.chart[data-series="${id}"]`, (c) => ({...c.dataset}));
  // Every run its own x (the branch run started with main's syn-h200-8), the branch's apart from main's line.
  assert.equal(Number(chart.points), expected.h200Points);
  assert.equal(Number(chart.branchPoints), 1);
  assert.equal(Number(chart.mainPoints), expected.h200Points - 1);
  const markers = await page.$$eval(`.chart[data-series="${id}"] ~ ul.markers li`, (ls) => ls.map((l) => [l.dataset.marker, l.textContent]));
  const drivers = markers.filter(([kind]) => kind === 'driver');
  assert.equal(drivers.length, 1, JSON.stringify(markers));
  assert.match(drivers[0][1], new RegExp(NEW_DRIVER.replaceAll('.', '\\.')));
  assert.equal(markers.filter(([kind]) => kind === 'runner').length, 1);
  const alerts = await page.$$eval('table.data tbody tr', (rs) => rs.map((r) => r.textContent));
  assert.ok(alerts.some((t) => /regression/.test(t)), JSON.stringify(alerts));
  assert.ok(await page.$('.charts-side'), 'hot and cold side by side');
  // Hovering a point tells its commit and driver.
  const box = await (await page.$(`.chart[data-series="${id}"] .u-over`)).boundingBox();
  await page.mouse.move(box.x + box.width - 3, box.y + box.height / 2);
  const hover = await page.$eval(`.chart[data-series="${id}"] ~ .hover`, (h) => h.textContent);
  assert.match(hover, new RegExp(`commit .* · main · NVIDIA ${NEW_DRIVER.replaceAll('.', '\\.')} · `));
  await shot(page, '2-series');
  assert.deepEqual(problems, []);
  await page.close();

  const failing = await seriesId(FAILING, expected.gpus[0]);
  const f = await open(`#/series/${failing}`, {colorScheme: 'dark'});
  assert.equal(await f.page.$eval(`.chart[data-series="${failing}"]`, (c) => Number(c.dataset.failures)), 1);
  await shot(f.page, '2b-series-failure-dark');
  assert.deepEqual(f.problems, []);
  await f.page.close();
});

test('series: what ran: a SPIR-V marker at the step, a compiler marker at the driver, the registers strip; the run lists it', async () => {
  const id = await seriesId(STEPPED, expected.gpus[0]);
  const {page, problems} = await open(`#/series/${id}`);
  const markers = await page.$$eval(`.chart[data-series="${id}"] ~ ul.markers li`, (ls) => ls.map((l) => [l.dataset.marker, l.textContent]));
  const code = markers.filter(([kind]) => kind === 'code'), compiler = markers.filter(([kind]) => kind === 'compiler');
  assert.equal(code.length, 1, JSON.stringify(markers));
  assert.match(code[0][1], new RegExp(`^SPIR-V 7ee3f905 → ${NEW_SPIRV.slice(0, 8)} at .* \\(run syn-h200-${STEP_AT}\\)$`));
  assert.equal(compiler.length, 1, JSON.stringify(markers));
  assert.match(compiler[0][1], new RegExp(`^compiled CS Register Count ${REGISTERS.before} → ${REGISTERS.after} at .* \\(run syn-h200-${DRIVER_CHANGE_AT}\\)$`));
  // The strip: one value per run, the statistic that changed chosen, none for the runs before the section.
  const strip = await page.$eval(`.chart[data-series="${id}"] + .statistics-strip .chart`, (c) => ({...c.dataset}));
  assert.equal(strip.statistic, 'CS Register Count');
  const values = JSON.parse(strip.values);
  assert.equal(values.length, expected.h200Points);
  // The synthetic runs and, among them, the branch run that started with syn-h200-8 (before the driver change).
  const synthetic = values.slice(values.length - HISTORY - 1);
  assert.deepEqual(synthetic, synthetic.map((_, i) => (i > DRIVER_CHANGE_AT ? REGISTERS.after : REGISTERS.before)));
  assert.ok(values.slice(0, values.length - HISTORY - 1).every((v) => v === null), strip.values);
  await page.select(`.chart[data-series="${id}"] + .statistics-strip select`, 'CS Shared Memory Size');
  assert.equal(await page.$eval(`.chart[data-series="${id}"] + .statistics-strip .chart`, (c) => c.dataset.statistic), 'CS Shared Memory Size');
  await page.select(`.chart[data-series="${id}"] + .statistics-strip select`, 'CS Register Count');
  await shot(page, '2c-series-compiled');
  assert.deepEqual(problems, []);
  await page.close();

  const run = await open(`#/runs/syn-h200-${HISTORY - 1}`);
  const table = await run.page.$eval('#compiled + .table-wrap table', (t) => ({
    headers: [...t.querySelectorAll('th')].map((h) => h.textContent),
    rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent))}));
  assert.deepEqual(table.headers.slice(0, 4), ['Kernel', 'SPIR-V', 'Input', 'Register Count']);
  assert.equal(table.rows.length, 48);
  const stepped = table.rows.find((r) => r[0] === STEPPED_KERNEL);
  assert.deepEqual(stepped.slice(1, 4), [NEW_SPIRV, 'random@1', String(REGISTERS.after)]);
  assert.equal(table.rows.find((r) => r[0] === 'boids/blend_1x1')[3], 'VS 16 · FS 16');
  await run.page.$eval('#compiled', (h) => h.scrollIntoView());
  await shot(run.page, '5d-run-compiled');
  assert.deepEqual(run.problems, []);
  await run.page.close();
});

test('series with one point: sane axes by run and by time; an overlay keeps its band and every point in view', async () => {
  const id = await seriesId('lum/grid_stride_vec4/15360x8640/hot', expected.gpus[0]);
  const points = await (await fetch(`${server.url}/api/v1/series/${id}`)).json();
  assert.equal(points.points.length, 1);
  const value = points.points[0].value_ns;
  for (const x of ['run', 'time']) {
    const {page, problems} = await open(`#/series/${id}${x === 'time' ? '?x=time' : ''}`);
    const c = await page.$eval(`.chart[data-series="${id}"]`, (e) => ({...e.dataset}));
    assert.equal(c.x, x);
    const span = Number(c.xMax) - Number(c.xMin);
    if (x === 'run') assert.equal(span, 1, JSON.stringify(c));
    else assert.ok(span > 0 && span <= 4 * 3600, `a one-point time axis spans ${span} s`);  // it spanned 2027-2029
    assert.ok(Number(c.yMin) < value && Number(c.yMax) > value && Number(c.yMax) - Number(c.yMin) < value, JSON.stringify(c));
    if (x === 'run') await shot(page, '2c-series-one-point');
    assert.deepEqual(problems, []);
    await page.close();
  }
  // The H200's stepped series with the H100 overlaid: both GPUs' points, and both bands' edges, inside the y range.
  const h200 = await seriesId(STEPPED, expected.gpus[0]), h100 = await seriesId(STEPPED, expected.gpus[1]);
  const {page, problems} = await open(`#/series/${h200}?overlay=${h100}`);
  const c = await page.$eval(`.chart[data-series="${h200}"]`, (e) => ({...e.dataset}));
  const all = [];
  for (const sid of [h200, h100])
    for (const p of (await (await fetch(`${server.url}/api/v1/series/${sid}`)).json()).points)
      all.push(p.value_ns, p.p25_ns ?? p.value_ns, p.p75_ns ?? p.value_ns);
  assert.ok(Number(c.yMin) <= Math.min(...all) && Number(c.yMax) >= Math.max(...all), `${JSON.stringify(c)} vs ${Math.min(...all)}..${Math.max(...all)}`);
  await shot(page, '2d-series-overlay');
  assert.deepEqual(problems, []);
  await page.close();
});

test('alerts: a kernel broken at every size and mode is one card with the wrong answer and the commit it began at', async () => {
  const {page, problems} = await open('#/alerts?family=lum&state=new');
  const cards = await page.$$eval('article.alert', (as) => as.map((a) => ({ids: a.dataset.alerts.split(','),
    kernel: a.querySelector('.kernel').textContent, text: a.textContent,
    wrong: a.querySelector('.wrong-answer')?.textContent ?? null,
    members: [...a.querySelectorAll('.members li')].map((l) => l.textContent)})));
  const broken = cards.filter((c) => c.kernel === BROKEN_KERNEL && c.wrong !== null);
  assert.equal(broken.length, 1, JSON.stringify(cards.map((c) => [c.kernel, c.ids.length])));
  const [card] = broken;
  const api = await (await fetch(`${server.url}/api/v1/alerts?family=lum&state=new&limit=500`)).json();
  const ofKernel = api.alerts.filter((a) => a.benchmark.startsWith(`${BROKEN_KERNEL}/`) && a.kind.startsWith('correctness'));
  assert.ok(ofKernel.length >= 8, `${ofKernel.length} alerts`);
  assert.deepEqual([...card.ids].sort(), ofKernel.map((a) => String(a.id)).sort());
  assert.equal(card.members.length, ofKernel.length);
  assert.match(card.wrong, /^since c290ffee29: FAIL: [0-9x]+: sum off by 3\.2e-3/);
  assert.doesNotMatch(card.text, /cause/);
  await page.$eval(`article.alert[data-alert="${card.ids[0]}"]`, (a) => a.scrollIntoView());
  await shot(page, '3b-alert-broken-kernel');
  assert.deepEqual(problems, []);
  await page.close();
});

// Issue 52: an empty list says why a failed run can have no alert (a branch's slowdowns are its verdict's only).
test('alerts: an empty list explains itself', async () => {
  const {page, problems} = await open(`#/alerts?benchmark=${encodeURIComponent(STEPPED)}&state=invalid`);
  const note = await page.$eval('.empty-alerts', (d) => d.textContent);
  assert.match(note, /^No alerts match these filters\./);
  assert.match(note, /A failed run need not raise an alert: a branch's slowdowns/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('alerts: listed; triage without a token is refused, with one it changes the state', async () => {
  const {page, problems} = await open('#/alerts?state=new&kind=regression');
  const cards = await page.$$('article.alert');
  assert.ok(cards.length >= 1);
  assert.deepEqual(problems, []);
  await shot(page, '3-alerts');
  // The evidence's one-line summary keeps its sentences apart ("...1.0commit changed" ran together).
  const summary = await page.$eval('article.alert details summary', (s) => s.textContent);
  assert.match(summary, /driver (un)?changed: [^;]+; commit (un)?changed: /, summary);
  const first = await page.$eval('article.alert', (a) => a.dataset.alert);
  const triage = async () => {
    await page.select(`article.alert[data-alert="${first}"] select`, 'acknowledged');
    await page.type(`article.alert[data-alert="${first}"] input[aria-label="note"]`, 'looking');
    await page.click(`article.alert[data-alert="${first}"] button[type="submit"]`);
    await page.waitForFunction((id) => /^(saved|refused)/.test(document.querySelector(`article.alert[data-alert="${id}"] .triage-message`).textContent), {}, first);
  };
  await triage();
  assert.match(await page.$eval(`article.alert[data-alert="${first}"] .triage-message`, (m) => m.textContent), /refused: missing bearer token/);
  assert.equal((await (await fetch(`${server.url}/api/v1/alerts/${first}`)).json()).state, 'new');
  // Paste the token in the header box, then triage again.
  await page.type('#token input', server.token);
  await page.click('#token button[type="submit"]');
  await page.waitForFunction(() => document.body.dataset.ready === 'alerts' && document.querySelector('article.alert'));
  await triage();
  assert.match(await page.$eval(`article.alert[data-alert="${first}"] .triage-message`, (m) => m.textContent), /saved: acknowledged by dashboard-test/);
  const stored = await (await fetch(`${server.url}/api/v1/alerts/${first}`)).json();
  assert.equal(stored.state, 'acknowledged');
  assert.equal(stored.note, 'looking');
  await page.close();
});

test('GPU comparison: the seeds\' chart by default, fastest first, % of roofline, flips within an operation, ties', async () => {
  const {page, problems} = await open('#/gpus');
  const legend = await page.$eval('#gpu-legend', (l) => l.textContent);
  for (const g of expected.gpus) assert.ok(legend.includes(g), `${g} missing from ${legend}`);
  const heading = await page.$eval('main h2', (h) => h.textContent);
  assert.ok(heading.startsWith('lum · 1920x1080/hot'), heading);
  const groups = await page.$$eval('.bar-group', (gs) => gs.map((g) => ({
    variant: g.dataset.variant,
    lines: [...g.querySelectorAll('.bar-line[data-gpu]')].map((l) => l.textContent)})));
  assert.ok(groups.length >= 15 && groups.every((g) => g.lines.length === expected.gpus.length), JSON.stringify(groups));
  assert.ok(groups.every((g) => g.lines.every((l) => / of roofline · #\d+ on /.test(l))), groups[0].lines.join('\n'));
  const answer = await (await fetch(`${server.url}/api/v1/rankings?commit=${ROOFLINE_COMMIT}`)).json();
  const group = answer.groups.find((g) => g.family === 'lum' && g.config === '1920x1080/hot');
  const best = (v) => Math.min(...group.by_gpu.map((g) => g.ranking.find((r) => r.variant === v)?.value_ns ?? Infinity));
  const shown = groups.map((g) => best(g.variant));
  assert.deepEqual(shown, [...shown].sort((a, b) => a - b), 'variants fastest first');
  const operations = new Map(group.by_gpu[0].ranking.map((r) => [r.variant, r.operation]));
  for (const f of group.flips) assert.equal(operations.get(f.faster_on_a), operations.get(f.faster_on_b), JSON.stringify(f));
  const fastest = await page.$$eval('#fastest-gpu li', (ls) => ls.map((l) => l.textContent));
  assert.equal(fastest.length, groups.length);
  for (const o of group.gpu_order) {
    const line = fastest.find((l) => l.startsWith(`${o.variant}: `));
    assert.ok(o.tie ? line.includes('tie within noise') : line.includes(`${o.fastest} fastest`), line);
  }
  await shot(page, '4-gpu-comparison');
  assert.deepEqual(problems, []);
  await page.close();
  // Boids at 1M: single_invocation (tens of ms) beside kernels under 1 ms: log scale offered, and the fastest bar readable.
  const boids = await open(`#/gpus?commit=${ROOFLINE_COMMIT}&family=boids&config=1048576%2Fcold&scale=log`);
  const widths = await boids.page.$$eval('.bar', (bs) => bs.map((b) => parseFloat(b.style.width)));
  assert.ok(Math.min(...widths) >= 7, JSON.stringify(widths));
  assert.ok(await boids.page.$eval('main h2', (h) => h.textContent.includes('(log scale)')));
  assert.deepEqual(boids.problems, []);
  await boids.page.close();
});

test('run and compare: sortable benchmarks with status; two runs compared', async () => {
  const {page, problems} = await open('#/runs/syn-h200-29');
  const rows = await page.$$eval('table.data tbody tr', (rs) => rs.map((r) => r.textContent));
  assert.ok(rows.length >= 348, `${rows.length} rows`);
  assert.ok(rows.some((r) => r.includes(FAILING) && r.includes('FAIL')));
  assert.ok(rows.some((r) => r.includes('UNSUPPORTED')));
  // Issue 56: a latency-bound kernel's rows name their limit where a % of the copy peak near zero stood; the others
  // keep their percentage; the legend says what the words mean.
  const peaks = new Map(await page.$$eval('table.data tbody tr', (rs) => rs.map((r) => [r.cells[0].textContent, r.cells[3].textContent])));
  const latency = [...peaks].filter(([name]) => name.startsWith(`${LATENCY_KERNEL}/`));
  assert.ok(latency.length >= 4 && latency.every(([, peak]) => peak === 'latency-bound'), JSON.stringify(latency));
  assert.match(peaks.get(STEPPED), /^\d+(\.\d)?%$/, 'a bandwidth-bound row keeps its %');
  assert.match(await page.$eval('p.legend', (p) => p.textContent), /latency-bound \(steps that wait on each other/);
  // A run's page is none of the nav's pages: no link is underlined (it used to be "Compare runs").
  assert.deepEqual(await page.$$eval('#nav a.active', (as) => as.map((a) => a.textContent)), []);
  await page.click('th:nth-child(2)');  // median, largest first
  await shot(page, '5-run');
  assert.deepEqual(problems, []);
  await page.close();
  const c = await open('#/compare?base=syn-h200-17&contender=syn-h200-29');
  assert.match(await c.page.$eval('#geomean', (g) => g.textContent), /geomean [+-]?\d/);
  const top = await c.page.$eval('table.data tbody tr', (r) => r.textContent);
  assert.match(top, new RegExp(STEPPED.replaceAll('/', '\\/')));  // the 8% step sorts first
  await shot(c.page, '5b-compare');
  assert.deepEqual(c.problems, []);
  await c.page.close();
  // The legacy H200 pair's second run made the 8K shared-memory blur 3.6x slower: its page names the slowdown
  // and says what the verdict could see (one run of history).
  const slow = await open('#/runs/real-h200-2');
  assert.match(await slow.page.$eval('.coverage', (p) => p.textContent), /^history: 1 run; judged against the previous run;/);
  // The verdict's explanation, in the words of summary.md and junit.xml: the finding, what changed, what to do.
  const verdict = await (await fetch(`${server.url}/api/v1/runs/real-h200-2/verdict`)).json();
  const explained = verdict.explanations.find((e) => e.benchmark.startsWith('postfx/blur_shared_r16/7680x4320/cold'));
  assert.match(explained.headline, /^slowdown 3\.\d+x \(.* -> .*\) against the previous run \(real-h200-1\), past the gate's floor/);
  const listed = await slow.page.$$eval('ul.problems li', (ls) => ls.map((l) => ({
    headline: l.querySelector('.headline').textContent, evidence: l.querySelector('.evidence').textContent,
    next: l.querySelector('.next').textContent, compare: l.querySelector('.next a')?.getAttribute('href')})));
  const item = listed.find((l) => l.headline === explained.headline);
  assert.ok(item, JSON.stringify(listed));
  assert.equal(item.evidence, explained.evidence);
  assert.equal(item.compare, '#/compare?base=real-h200-1&contender=real-h200-2');
  assert.match(item.next, /measure it: shaderwatch-bench --filter '\^postfx\/blur_shared_r16\$' --sizes 7680x4320/);
  // The table: the failing row first, with its finding and change; the counts are the table's.
  const first = await slow.page.$eval('table.data tbody tr', (r) => r.textContent);
  assert.match(first, /blur_shared_r16\/7680x4320\/cold.*\+2\d\d%.*slowdown/);
  const rowCount = await slow.page.$eval('.table-wrap table.data', (t) => t.tBodies[0].rows.length);
  const counts = await slow.page.$eval('.run-counts', (p) => p.textContent);
  assert.ok(counts.startsWith(`${rowCount} benchmarks:`), `${counts} / ${rowCount} rows`);
  await shot(slow.page, '5c-run-slowdown');
  assert.deepEqual(slow.problems, []);
  await slow.page.close();
});

test('correctness matrix: kernels x (GPU, driver) with FAIL, XFAIL/XPASS and UNSUPPORTED cells', async () => {
  const {page, problems} = await open('#/correctness');
  const heads = await page.$$eval('table.matrix thead th', (hs) => hs.map((h) => h.textContent));
  assert.equal(heads.length, 1 + 3);  // H200 at two drivers, H100 at one
  const outcomes = await page.$$eval('td.cell[data-outcome]', (cs) => [...new Set(cs.map((c) => c.dataset.outcome))].sort());
  for (const o of ['fail', 'pass', 'unsupported']) assert.ok(outcomes.includes(o), JSON.stringify(outcomes));
  assert.ok(outcomes.includes('xfail') || outcomes.includes('xpass'), JSON.stringify(outcomes));
  await shot(page, '6-correctness');
  assert.deepEqual(problems, []);
  await page.close();
});

test('names from clients render as text: an XSS benchmark name runs nothing', async () => {
  const id = await seriesId(XSS_NAME, expected.gpus[0]);
  const {page, problems} = await open(`#/series/${id}`);
  assert.equal(await page.$eval('h1', (h) => h.textContent), XSS_NAME);
  assert.equal(await page.$('img[src="x"]'), null);
  const run = await open('#/runs/syn-h200-5');
  assert.match(await run.page.$eval('main', (m) => m.textContent), /<script>alert\(2\)<\/script>/);
  assert.equal(await run.page.$('main script'), null);
  assert.deepEqual([...problems, ...run.problems], []);
  await page.close();
  await run.page.close();
});

test('with --read-token-required the page loads and asks for a token', async () => {
  const closed = await startServer(bin, ['--read-token-required']);
  try {
    const page = await browser.newPage();
    await page.goto(`${closed.url}/#/`, {waitUntil: 'networkidle0'});
    await page.waitForFunction(() => document.body.dataset.ready);
    assert.match(await page.$eval('main', (m) => m.textContent), /needs a token to read/);
    await page.type('#token input', closed.token);
    await page.click('#token button[type="submit"]');
    await page.waitForFunction(() => /No runs yet/.test(document.querySelector('main').textContent));
    await page.close();
  } finally {
    closed.stop();
  }
});
