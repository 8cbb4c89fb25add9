// A real shaderwatch-server on 127.0.0.1 with a real SQLite file, seeded through its own API with the
// three real runs in ../shared/data (two H200, one H100), the H200 and H100 runs of 1a5ab89 (with % of
// roofline; the GPU comparison's default commit), and a synthetic H200 history derived from them
// that holds what the pages must show: a driver update, a runner change, a step (regression alerts), a
// correctness failure, an UNSUPPORTED kernel, and a benchmark whose name is an XSS attempt. The synthetic
// runs carry the compiled section of a real --quick run (h200-37f43c1-quick.json.gz), changed where the
// story says: the new driver compiles the stepped kernel with more registers, and the step's commit
// changes its SPIR-V.
import {spawn, execFileSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {gunzipSync} from 'node:zlib';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

export const XSS_NAME = '<img src=x onerror=alert(1)>';
export const STEPPED = 'lum/interleaved_256/1920x1080/hot';  // +8% from synthetic run 18 on
export const BROKEN_KERNEL = 'lum/sequential_256';              // wrong answers at every size in the last run
export const FAILING = `${BROKEN_KERNEL}/1280x720/hot`;
export const ROOFLINE_COMMIT = '1a5ab89';                     // the real runs with % of roofline
export const HISTORY = 30;
export const BRANCH_RUN = 'pr-h200-1';
export const PARTIAL_RUN = 'partial-h200-16k';                 // the H200's latest run, 16K only                                     // synthetic H200 runs
export const DRIVER_CHANGE_AT = 12, STEP_AT = 18, RUNNER_CHANGE_AT = 24;
// NVIDIA's own spelling, with the raw driverVersion the server spells it from (10.8.8.6 bits).
export const NEW_DRIVER = '590.10.01';
export const STEPPED_KERNEL = 'lum/interleaved_256';
export const LATENCY_KERNEL = 'boids/single_invocation';       // "latency" in the synthetic runs' compiled section
export const NEW_SPIRV = 'c0de5fee18000000';                    // the stepped kernel's SPIR-V from STEP_AT
export const REGISTERS = {before: 16, after: 18};               // its CS Register Count, before and after the new driver
const NEW_DRIVER_RAW = '0x93828040';

export async function startServer(bin, extraArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), 'sw-dashboard-'));
  const db = join(dir, 'shaderwatch.db');
  const child = spawn(bin, ['serve', '--db', db, '--port', '0', '--bind', '127.0.0.1', ...extraArgs],
    {stdio: ['ignore', 'pipe', 'inherit']});
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`shaderwatch-server exited with ${code} before listening`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
  });
  const token = /swt_[0-9a-f]+/.exec(execFileSync(bin, ['token', 'create', 'dashboard-test', '--scope', 'admin', '--db', db], {stdio: ['ignore', 'pipe', 'ignore']}).toString())[0];
  return {url, token, db, stop: () => { child.kill('SIGTERM'); rmSync(dir, {recursive: true, force: true}); }};
}

// Deterministic noise: the same database every time.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function gaussian(next) {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

export async function post(url, token, run, benchmark) {
  const res = await fetch(`${url}/api/v1/runs`, {method: 'POST', body: JSON.stringify({run, benchmark}),
    headers: {Authorization: `Bearer ${token}`, 'Content-Type': 'application/json'}});
  if (res.status !== 201) throw new Error(`post ${run.id}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

const TIME_KEYS = ['real_time', 'median_us', 'min_us', 'p25_us', 'p75_us'];

// The stepped kernel's compiled statistics and SPIR-V as of synthetic run i.
function compiledAt(section, i) {
  const out = structuredClone(section);
  // What bounds each kernel's time, as a bench of contract format 4 says it: that section's boids kernels are the
  // catalog's latency-bound ones (one invocation or workgroup, atomics or blending into one place, a chain of blits),
  // its depth-of-field composite the compute-bound one.
  for (const [name, entry] of Object.entries(out))
    entry.limit = name.startsWith('boids/') ? 'latency' : name === 'postfx/dof_composite' ? 'compute' : 'bandwidth';
  const kernel = out[STEPPED_KERNEL];
  if (i >= DRIVER_CHANGE_AT)
    kernel.pipelines[0][0].statistics.find((s) => s.name === 'Register Count').value = REGISTERS.after;
  if (i >= STEP_AT) kernel.spirv = NEW_SPIRV;
  return out;
}

function syntheticRun(base, compiled, i, next) {
  const doc = structuredClone(base);
  doc.sw_compiled = compiledAt(compiled, i);
  if (i >= DRIVER_CHANGE_AT)
    Object.assign(doc.context, {sw_driver_version: NEW_DRIVER, sw_driver_version_raw: NEW_DRIVER_RAW, sw_driver_info: NEW_DRIVER});
  const rows = doc.benchmarks.map((b) => {
    const name = b.name.replace(/\/iterations:\d+\/manual_time$/, '');
    const factor = (1 + 0.01 * gaussian(next)) * (name === STEPPED && i >= STEP_AT ? 1.08 : 1);
    const row = {...b, name, run_name: name};
    if (name.startsWith(`${STEPPED_KERNEL}/`)) row.label = row.label.replace(/^spirv:\S+/, `spirv:${doc.sw_compiled[STEPPED_KERNEL].spirv}`);
    for (const k of TIME_KEYS) if (typeof row[k] === 'number') row[k] *= factor;
    if (name.startsWith(BROKEN_KERNEL + '/') && i === HISTORY - 1)  // the whole kernel breaks: every size and mode
      Object.assign(row, {error_occurred: true, error_message: `FAIL: ${name.split('/')[2]}: sum off by 3.2e-3, bound 1.1e-5 (seed 7)`});
    return row;
  });
  const template = rows.find((r) => !r.error_occurred);
  rows.push({...template, name: XSS_NAME, run_name: XSS_NAME, label: XSS_NAME});
  rows.push({...template, name: 'boids/naive/8192x8192/cold', run_name: 'boids/naive/8192x8192/cold',
    error_occurred: true, error_message: 'UNSUPPORTED: input of 1 GiB over the device limit of 128 MiB'});
  doc.benchmarks = rows;
  return doc;
}

// Posts everything; returns what the pages should then show.
export async function seed(url, token, dataDir) {
  const load = (f) => JSON.parse(f.endsWith('.gz') ? gunzipSync(readFileSync(join(dataDir, f))).toString('utf8')
    : readFileSync(join(dataDir, f), 'utf8'));
  const h200a = load('h200-run1.json'), h200b = load('h200-run2.json'), h100 = load('h100-run1.json');
  const compiled = load('h200-37f43c1-quick.json.gz').sw_compiled;
  const run = (id, commit, startedAt, runner = 'gpu-box-1') => ({id, commit, branch: 'main', runner, started_at: startedAt,
    job_url: 'https://ci.example/jobs/' + id});
  await post(url, token, run('real-h200-1', 'a1b2c3d4e5f6', '2026-11-01T00:00:00Z'), h200a);
  await post(url, token, run('real-h200-2', 'b2c3d4e5f6a7', '2026-11-01T01:00:00Z'), h200b);
  await post(url, token, run('real-h100-1', 'b2c3d4e5f6a7', '2026-11-01T01:30:00Z'), h100);
  await post(url, token, run('roofline-h200', ROOFLINE_COMMIT, '2026-11-01T02:00:00Z'), load('h200-1a5ab89.json.gz'));
  await post(url, token, run('roofline-h100', ROOFLINE_COMMIT, '2026-11-01T02:30:00Z'), load('h100-1a5ab89.json.gz'));
  const next = rng(7);
  for (let i = 0; i < HISTORY; i++) {
    const startedAt = new Date(Date.parse('2026-11-02T00:00:00Z') + i * 3600e3).toISOString();
    const commit = i === 5 ? '<script>alert(2)</script>' : `c${String(i).padStart(2, '0')}0ffee${i}`;
    await post(url, token, run(`syn-h200-${i}`, commit, startedAt, i >= RUNNER_CHANGE_AT ? 'gpu-box-2' : 'gpu-box-1'),
      syntheticRun(h200a, compiled, i, next));
  }
  // A pull request's run that started with main's syn-h200-8 (one start time, two runs), its kernels twice as slow:
  // a point of its own, drawn apart from main's line.
  const slowBranch = syntheticRun(h200a, compiled, 8, rng(99));
  for (const row of slowBranch.benchmarks) for (const k of ['real_time', 'cpu_time']) if (typeof row[k] === 'number') row[k] *= 2;
  await post(url, token, {...run(BRANCH_RUN, 'e5f6a7b8c9d0', new Date(Date.parse('2026-11-02T00:00:00Z') + 8 * 3600e3).toISOString()),
    branch: 'topic', merge_base: 'c080ffee8'}, slowBranch);
  // Last: a partial run (the luminance reductions at 16K only) becomes the H200's latest.
  await post(url, token, run(PARTIAL_RUN, 'd4e5f6a7b8c9', '2026-11-04T00:00:00Z'), load('h200-50e20fd-lum16k.json.gz'));
  return {gpus: [h200a.context.sw_device_name, h100.context.sw_device_name], h200Points: 4 + HISTORY};
}
