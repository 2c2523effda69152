// The console's one way to the server: DynamoDB's JSON protocol (call), the
// control API under /_dynarock/ (control), and the namespace whose tables the
// console shows (setNamespace). Every request carries an AWS SigV4
// Authorization header naming the chosen access key and region: signed for
// real with WebCrypto when the secret key is known (the server runs with
// --require-auth), otherwise the same shape with a placeholder signature,
// which a server without auth reads only to pick the namespace.
//
//   import { call, control, setNamespace, ApiError } from './api.js';
//   const { data, explain } = await call('Query', {...}, { explain: true });
//   const info = await control('GET', 'console/info');

// An error reply of either API: type is DynamoDB's error type (the part of
// __type after '#'), message its message, status the HTTP status.
export class ApiError extends Error {
  constructor(type, message, status) {
    super(message ? `${type}: ${message}` : type);
    this.name = 'ApiError';
    this.type = type;
    this.message = message ?? '';
    this.status = status;
  }
  // "Type: message", as the console shows an error.
  toString() { return this.message ? `${this.type}: ${this.message}` : this.type; }
}

const SERVICE = 'dynamodb';
const encoder = new TextEncoder();

// The endpoint: the page's own origin, or ?endpoint=URL for development.
function endpointBase() {
  const given = new URLSearchParams(globalThis.location?.search ?? '').get('endpoint');
  if (given) return given.replace(/\/+$/, '');
  return globalThis.location?.origin ?? 'http://127.0.0.1:8000';
}
export const endpoint = endpointBase();

// The namespace: its access key and region, and the secret when known. An
// access key of null sends requests unsigned-shaped for the shared namespace.
const state = { accessKey: null, region: 'us-east-1', secretKey: null };
const listeners = new Set();

export function setNamespace({ accessKey = null, region = 'us-east-1', secretKey = null } = {}) {
  state.accessKey = accessKey || null;
  state.region = region || 'us-east-1';
  state.secretKey = secretKey || null;
  for (const fn of listeners) fn(getNamespace());
}

export function getNamespace() {
  return { accessKey: state.accessKey, region: state.region, hasSecret: Boolean(state.secretKey) };
}

// Calls fn(namespace) whenever setNamespace changes it; returns the unsubscriber.
export function onNamespaceChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// ---- SigV4 (AWS Signature Version 4) with WebCrypto ---------------------------

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');

async function sha256Hex(data) {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}

async function hmac(key, data) {
  const k = await crypto.subtle.importKey('raw', typeof key === 'string' ? encoder.encode(key) : key,
    { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return crypto.subtle.sign('HMAC', k, encoder.encode(data));
}

// RFC 3986 encoding as SigV4 wants it: all but A-Z a-z 0-9 - _ . ~ as %XX.
export function uriEncode(s, keepSlash = false) {
  let out = '';
  for (const b of encoder.encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

// The query string of a route, parameters RFC 3986-encoded, in sorted order
// (so the string sent is also the canonical query string).
export function canonicalQuery(query) {
  if (!query) return '';
  const pairs = (query instanceof URLSearchParams ? [...query] : Object.entries(query))
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => [uriEncode(String(k)), uriEncode(String(v))]);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

function amzDate(now = new Date()) {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');  // 20240101T000000Z
}

// The Authorization and X-Amz-Date headers for a request. `headers` holds the
// headers that will be sent (names in any case); the signed ones are
// content-type (when present), host, x-amz-date and x-amz-target (when present).
export async function signRequest({ method, url, headers, body = '' }) {
  const u = new URL(url);
  const date = amzDate();
  const day = date.slice(0, 8);
  const all = { host: u.host, 'x-amz-date': date };
  for (const [k, v] of Object.entries(headers)) all[k.toLowerCase()] = String(v).trim().replace(/\s+/g, ' ');
  const signed = ['content-type', 'host', 'x-amz-date', 'x-amz-target'].filter((h) => h in all);
  const signedHeaders = signed.join(';');
  const accessKey = state.accessKey ?? 'console';
  const scope = `${day}/${state.region}/${SERVICE}/aws4_request`;
  let signature = '0'.repeat(64);
  if (state.secretKey && state.accessKey) {
    const canonicalRequest = [
      method,
      uriEncode(u.pathname || '/', true),
      canonicalQuery(u.searchParams),
      signed.map((h) => `${h}:${all[h]}\n`).join(''),
      signedHeaders,
      await sha256Hex(body),
    ].join('\n');
    const stringToSign = ['AWS4-HMAC-SHA256', date, scope, await sha256Hex(canonicalRequest)].join('\n');
    let key = await hmac('AWS4' + state.secretKey, day);
    key = await hmac(key, state.region);
    key = await hmac(key, SERVICE);
    key = await hmac(key, 'aws4_request');
    signature = hex(await hmac(key, stringToSign));
  }
  return {
    'X-Amz-Date': date,
    Authorization: `AWS4-HMAC-SHA256 Credential=${accessKey}/${scope}, ` +
      `SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

// ---- Requests -----------------------------------------------------------------

// The request's headers with the signature; the shared namespace (no access
// key) sends no Authorization at all, as an unsigned client does.
async function withAuth(method, url, headers, body) {
  if (!state.accessKey) return headers;
  return { ...headers, ...(await signRequest({ method, url, headers, body })) };
}

async function errorOf(res) {
  let type = `HTTP${res.status}`;
  let message = res.statusText || '';
  const text = await res.text().catch(() => '');
  try {
    const j = JSON.parse(text);
    const t = j.__type ?? j.type ?? j.code;
    if (t) type = String(t).split('#').pop();
    message = j.message ?? j.Message ?? message;
  } catch {
    if (text) message = text.slice(0, 300);
  }
  if (type === `HTTP${res.status}` && res.headers.get('x-amzn-ErrorType')) {
    type = res.headers.get('x-amzn-ErrorType').split(':')[0].split('#').pop();
  }
  return new ApiError(type, message, res.status);
}

// The explain facts of a reply (X-Dynarock-Explain: a JSON object,
// percent-encoded; plain JSON is read too), or null.
export function parseExplain(headerValue) {
  if (!headerValue) return null;
  for (const decode of [(s) => decodeURIComponent(s), (s) => s]) {
    try {
      const v = JSON.parse(decode(headerValue.trim()));
      if (v && typeof v === 'object') return v;
    } catch { /* try the next reading */ }
  }
  return null;
}

async function send(url, init) {
  try {
    return await fetch(url, init);
  } catch (e) {
    throw new ApiError('NetworkError', `The endpoint ${endpoint} did not answer (${e.message})`, 0);
  }
}

// Calls DynamoDB operation `operation` (or a DynamoDB Streams one) with the
// request `body`; resolves to { data, explain, ms } (explain: the server's
// facts when asked for and sent, else null; ms: the round trip) or throws ApiError.
export async function call(operation, body = {}, { explain = false, streams = false } = {}) {
  const url = endpoint + '/';
  const payload = JSON.stringify(body ?? {});
  const target = `${streams ? 'DynamoDBStreams_20120810' : 'DynamoDB_20120810'}.${operation}`;
  const headers = { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': target };
  const signedHeaders = await withAuth('POST', url, headers, payload);
  if (explain) signedHeaders['X-Dynarock-Explain'] = '1';
  const started = performance.now();
  const res = await send(url, { method: 'POST', headers: signedHeaders, body: payload });
  if (!res.ok) {
    const err = await errorOf(res);
    err.explain = explain ? parseExplain(res.headers.get('X-Dynarock-Explain')) : null;
    throw err;
  }
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError('SerializationException', 'The reply is not JSON', res.status);
  }
  const ms = performance.now() - started;
  const facts = explain ? parseExplain(res.headers.get('X-Dynarock-Explain')) : null;
  if (facts && facts.client_ms === undefined) facts.client_ms = ms;
  return { data, explain: facts, ms };
}

// A control API request: `route` is the path under /_dynarock/ ("namespaces",
// "console/info"), `query` an object of query parameters, `body` a value sent
// as JSON. Resolves to the parsed JSON reply (null when empty).
export async function control(method, route, { query, body } = {}) {
  const qs = canonicalQuery(query);
  const path = '/_dynarock/' + String(route).replace(/^\/+/, '');
  const url = endpoint + path + (qs ? '?' + qs : '');
  const payload = body === undefined ? '' : JSON.stringify(body);
  const headers = body === undefined ? {} : { 'Content-Type': 'application/json' };
  const init = { method, headers: await withAuth(method, url, headers, payload) };
  if (body !== undefined) init.body = payload;
  const res = await send(url, init);
  if (!res.ok) throw await errorOf(res);
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
