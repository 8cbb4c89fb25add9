// The dashboard's entry: the navigation, the token box, and the router that draws one page per hash
// route into <main>. Each page module exports render(main, route) and may return a cleanup function.
import {el, clear} from './dom.js';
import {parseRoute, buildHash} from './route.js';
import {ApiError, token, setToken} from './api.js';
import * as overview from './pages/overview.js';
import * as series from './pages/series.js';
import * as alerts from './pages/alerts.js';
import * as gpus from './pages/gpus.js';
import * as run from './pages/run.js';
import * as compare from './pages/compare.js';
import * as correctness from './pages/correctness.js';

const PAGES = {overview, series, alerts, gpus, runs: run, compare, correctness};
const NAV = [
  ['overview', 'Overview'],
  ['alerts', 'Alerts'],
  ['gpus', 'GPU comparison'],
  ['correctness', 'Correctness'],
  ['compare', 'Compare runs'],
];

let cleanup = null;
let generation = 0;

function drawNav(current) {
  const nav = clear(document.getElementById('nav'));
  for (const [page, label] of NAV)
    nav.append(el('a', {href: buildHash(page), class: page === current ? 'active' : null}, label));
}

function drawTokenBox() {
  const box = clear(document.getElementById('token'));
  if (token()) {
    box.append(el('span', {class: 'muted'}, 'token set '),
      el('button', {type: 'button', onclick: () => { setToken(''); drawTokenBox(); route(); }}, 'forget'));
    return;
  }
  const input = el('input', {type: 'password', placeholder: 'paste a token to triage', 'aria-label': 'token', autocomplete: 'off'});
  box.append(el('form', {class: 'inline', onsubmit: (e) => {
    e.preventDefault();
    setToken(input.value);
    drawTokenBox();
    route();
  }}, input, el('button', {type: 'submit'}, 'use')));
}

// What a page shows when its data cannot be had: the server's own words, or a token prompt when reads
// need one (serve --read-token-required).
export function showError(main, err) {
  clear(main);
  if (err instanceof ApiError && err.status === 401) {
    main.append(el('div', {class: 'error', role: 'alert'},
      el('p', {}, 'This server needs a token to read: ', err.message),
      el('p', {}, 'Paste one in the box at the top right.')));
    return;
  }
  main.append(el('div', {class: 'error', role: 'alert'}, el('p', {}, 'Could not load this page: ', err.message || String(err))));
}

async function route() {
  const mine = ++generation;
  delete document.body.dataset.ready;  // set again when this page is drawn (tests wait on it)
  if (cleanup) cleanup();
  cleanup = null;
  const r = parseRoute(location.hash);
  const page = PAGES[r.page];
  drawNav(r.page);  // a run's or a series' page is none of the nav's: nothing underlined
  const main = clear(document.getElementById('main'));
  if (!page) {
    main.append(el('div', {class: 'error', role: 'alert'}, `No page "${r.page}".`));
    return;
  }
  main.append(el('p', {class: 'muted'}, 'Loading…'));
  try {
    const done = await page.render(main, r, () => mine !== generation);
    if (mine === generation) cleanup = typeof done === 'function' ? done : null;
    else if (typeof done === 'function') done();
  } catch (err) {
    if (mine === generation) showError(main, err);
    console.warn(err);
  }
  if (mine === generation) document.body.dataset.ready = r.page;
}

window.addEventListener('hashchange', route);
drawTokenBox();
route();
