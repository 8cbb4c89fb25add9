// Hash routes, so every view is a shareable URL: #/series/12?overlay=3,4. Pure functions.

export function parseRoute(hash) {
  const text = (hash || '').replace(/^#/, '') || '/';
  const q = text.indexOf('?');
  const path = q < 0 ? text : text.slice(0, q);
  const query = {};
  if (q >= 0) for (const [k, v] of new URLSearchParams(text.slice(q + 1))) query[k] = v;
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return {page: parts[0] || 'overview', args: parts.slice(1), query};
}

// buildHash('series', [12], {overlay: '3,4'}) -> '#/series/12?overlay=3%2C4'; empty values are left out.
export function buildHash(page, args = [], query = {}) {
  const path = page === 'overview' ? '' : [page, ...args].map((p) => encodeURIComponent(String(p))).join('/');
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `#/${path}${qs ? `?${qs}` : ''}`;
}
