// The server's JSON API: GETs, the triage PATCH, and the bearer token a person pastes (kept for the
// browser session only). Errors carry the server's own message and field.

const TOKEN_KEY = 'shaderwatch-token';

export class ApiError extends Error {
  constructor(status, message, field) {
    super(field ? `${message} (${field})` : message);
    this.status = status;
    this.field = field;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value.trim());
  else sessionStorage.removeItem(TOKEN_KEY);
}

async function request(method, path, body) {
  const headers = {Accept: 'application/json'};
  if (token()) headers.Authorization = `Bearer ${token()}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  let data = null;
  try {
    data = await res.json();
  } catch {
    throw new ApiError(res.status, `HTTP ${res.status}: the answer is not JSON`);
  }
  if (!res.ok) throw new ApiError(res.status, data?.error?.message || `HTTP ${res.status}`, data?.error?.field);
  return data;
}

export function get(path, query = {}) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return request('GET', `/api/v1/${path}${qs ? `?${qs}` : ''}`);
}

// The API's words (alert states and kinds, which are open, which are correctness, ...): fetched once.
let words = null;
export function vocabulary() {
  words ??= get('vocabulary').catch((err) => { words = null; throw err; });
  return words;
}

export function patchAlert(id, state, note) {
  return request('PATCH', `/api/v1/alerts/${encodeURIComponent(id)}`, note ? {state, note} : {state});
}
