// Times the dashboard in headless Chromium against a running server (not a test: numbers for the note).
// Usage: node test/perf/dashboard_perf.mjs URL SERIES_ID [repeats]
// Prints: the overview's API answer time and time to a drawn page; the series' points drawn and the
// time from its data arriving to the chart's first draw (the chart's data-draw-ms).
import puppeteer from 'puppeteer-core';

const [url, seriesId, repeats = '5'] = process.argv.slice(2);
if (!url || !seriesId) {
  console.error('usage: node test/perf/dashboard_perf.mjs URL SERIES_ID [repeats]');
  process.exit(2);
}
const browser = await puppeteer.launch({executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync']});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const api = [], overview = [], draw = [], seriesTotal = [];
let points = 0;
for (let i = 0; i < Number(repeats); i++) {
  let t = performance.now();
  await (await fetch(`${url}/api/v1/summary?runs=25`)).json();
  api.push(performance.now() - t);
  const page = await browser.newPage();
  await page.setViewport({width: 1280, height: 900});
  t = performance.now();
  await page.goto(`${url}/#/`);
  await page.waitForFunction(() => document.body.dataset.ready === 'overview', {timeout: 60000});
  overview.push(performance.now() - t);
  t = performance.now();
  await page.goto(`${url}/#/series/${seriesId}`);
  await page.waitForFunction(() => document.querySelector('.chart[data-draw-ms]'), {timeout: 60000});
  seriesTotal.push(performance.now() - t);
  const d = await page.$eval('.chart[data-draw-ms]', (c) => ({ms: Number(c.dataset.drawMs), points: Number(c.dataset.points)}));
  draw.push(d.ms);
  points = d.points;
  await page.close();
}
await browser.close();
const f = (xs) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
console.log(`overview API /api/v1/summary: ${f(api)}`);
console.log(`overview page to drawn:       ${f(overview)}`);
console.log(`series page to drawn:         ${f(seriesTotal)}`);
console.log(`series data arrival to drawn: ${f(draw)} for ${points} points drawn`);
