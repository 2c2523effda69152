// The metrics view (#/metrics): the endpoint's requests per second, latency
// percentiles (p50, p95, p99) and errors per second, overall and per
// operation, as small charts of the last three minutes. It samples
// GET /_dynarock/metrics (cumulative counters since the server started) every
// 2 s while the view is mounted, not paused and the page visible, and charts
// the differences between successive samples (metrics_math.js).
//
//   mount(container, { control }) -> { unmount() }

import { delta, formatRate, formatSeconds } from './metrics_math.js';
import { lineChart } from './svg_chart.js';
import { el, errorNodes } from './attribute_display.js';
import { ensureViewStyles } from './view_common.js';

export const INTERVAL_MS = 2000;
const POINTS = 90;  // samples kept: three minutes at 2 s
const LATENCY_SERIES = [
  { name: 'p50', className: 'dv-s-p50' }, { name: 'p95', className: 'dv-s-p95' }, { name: 'p99', className: 'dv-s-p99' },
];
const STOPPING = new Set([401, 403, 404, 405]);  // errors that polling again will not fix

let uid = 0;

export function mount(container, ctx) {
  ensureViewStyles();
  const id = `dv-metrics-${++uid}`;
  const s = { alive: true, paused: false, busy: false, timer: null, prev: null, history: [], failures: 0,
    stopped: false, ops: new Map() };

  const errorBox = el('div', { class: 'error', role: 'alert', hidden: true });
  const stateBadge = el('span', { class: 'badge', 'data-state': 'starting' }, 'Connecting…');
  const pauseButton = el('button', { type: 'button', class: 'secondary', 'aria-pressed': 'false', onclick: togglePause }, 'Pause');
  const retryButton = el('button', { type: 'button', class: 'secondary', hidden: true, onclick: retry }, 'Try again');
  const totals = el('span', { class: 'muted', role: 'status' });
  const note = el('p', { class: 'muted' }, 'Collecting: rates need two samples, 2 s apart.');
  const rateChart = lineChart({ title: 'Requests/s', series: [{ name: '', className: 'dv-s-rate' }],
    format: formatRate, points: POINTS, describe: 'over the last 3 minutes' });
  const latencyChart = lineChart({ title: 'Latency', series: LATENCY_SERIES, format: formatSeconds, points: POINTS,
    describe: 'percentiles over the last 3 minutes' });
  const errorChart = lineChart({ title: 'Errors/s', series: [{ name: '', className: 'dv-s-errors' }],
    format: formatRate, points: POINTS, describe: 'over the last 3 minutes' });
  const opsBody = el('tbody', {});
  const opsTable = el('table', { class: 'dv-ops' },
    el('caption', { class: 'offscreen' }, 'Per operation, over the last 3 minutes'),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'Operation'), el('th', { scope: 'col' }, 'Requests/s'),
      el('th', { scope: 'col' }, 'Latency p50 · p95 · p99'), el('th', { scope: 'col' }, 'Errors/s'),
      el('th', { scope: 'col', class: 'dv-num' }, 'Since start'))),
    opsBody);
  const opsEmpty = el('p', { class: 'muted' }, 'No request served yet.');
  const opsIdle = el('p', { class: 'muted dv-ops-idle', hidden: true });
  const root = el('section', { class: 'dv-view dv-metrics', 'aria-labelledby': `${id}-h` },
    el('header', { class: 'view-head' }, el('h1', { id: `${id}-h` }, 'Metrics'),
      el('p', { class: 'muted' }, 'What this endpoint served, sampled every 2 s while this page is visible.')),
    errorBox,
    el('div', { class: 'dv-toolbar' }, stateBadge, pauseButton, retryButton, totals),
    note,
    el('div', { class: 'dv-chart-row' }, rateChart.element, latencyChart.element, errorChart.element),
    el('h3', {}, 'By operation'), opsEmpty, el('div', { class: 'dv-scroll-x' }, opsTable), opsIdle);
  container.append(root);

  // ---- polling ------------------------------------------------------------------
  const hidden = () => document.visibilityState === 'hidden';
  function showState() {
    const state = s.stopped ? 'error' : s.paused ? 'paused' : hidden() ? 'hidden' : 'live';
    stateBadge.dataset.state = state;
    stateBadge.textContent = { error: 'Stopped', paused: 'Paused', hidden: 'Paused while the page is hidden',
      live: 'Live' }[state];
    pauseButton.textContent = s.paused ? 'Resume' : 'Pause';
    pauseButton.setAttribute('aria-pressed', String(s.paused));
    pauseButton.disabled = s.stopped;
    retryButton.hidden = !s.stopped;
  }
  function cancel() {
    if (s.timer !== null) clearTimeout(s.timer);
    s.timer = null;
  }
  function schedule(ms) {
    cancel();
    if (!s.alive || s.paused || s.stopped || hidden()) return;
    s.timer = setTimeout(() => { s.timer = null; poll(); }, ms);
  }
  // A gap in the charts: the next sample starts afresh instead of averaging
  // over the time nothing was sampled.
  function gap() {
    if (s.prev) s.history.push(null);
    s.prev = null;
  }

  async function poll() {
    if (s.busy || !s.alive) return;
    s.busy = true;
    let snapshot;
    try {
      snapshot = await ctx.control('GET', 'metrics');
    } catch (e) {
      s.busy = false;
      if (!s.alive) return;
      errorBox.replaceChildren(...errorNodes(e, 'GET /_dynarock/metrics'));
      errorBox.hidden = false;
      if (STOPPING.has(e.status)) {
        s.stopped = true;
        showState();
        return;
      }
      s.failures++;
      gap();
      schedule(Math.min(INTERVAL_MS * 2 ** s.failures, 30000));
      return;
    }
    s.busy = false;
    if (!s.alive) return;
    s.failures = 0;
    errorBox.hidden = true;
    take(snapshot ?? {});
    schedule(INTERVAL_MS);
  }

  function take(snapshot) {
    const d = delta(s.prev, snapshot);
    if (s.prev && !d) {
      s.history = [];
      note.textContent = 'The server restarted: the charts start again.';
      note.hidden = false;
    } else if (d) {
      note.hidden = true;
    }
    s.prev = snapshot;
    if (d) {
      s.history.push(d);
      if (s.history.length > POINTS) s.history.splice(0, s.history.length - POINTS);
    }
    totals.textContent = `up ${formatUptime(snapshot.uptime_seconds)} · ${Number(snapshot.requests ?? 0)
      .toLocaleString('en-US')} requests, ${Number(snapshot.errors ?? 0).toLocaleString('en-US')} errors since start`;
    render(snapshot);
  }

  // ---- drawing ------------------------------------------------------------------
  const seriesOf = (pick) => s.history.map((h) => (h ? pick(h) : null));
  function render(snapshot) {
    rateChart.update([seriesOf((h) => h.overall.rate)]);
    latencyChart.update(['p50', 'p95', 'p99'].map((q) => seriesOf((h) => h.overall[q])));
    errorChart.update([seriesOf((h) => h.overall.errorRate)]);
    // Operations with requests in the charted window get a row, the busiest
    // first; the others are one line of totals.
    const ops = snapshot.operations ?? {};
    const recent = (name) => s.history.reduce((sum, h) => sum + (h?.operations[name]?.requests ?? 0), 0);
    const names = Object.keys(ops).sort((a, b) => recent(b) - recent(a) || Number(ops[b].requests) - Number(ops[a].requests)
      || (a < b ? -1 : 1));
    const active = names.filter((name) => recent(name) > 0);
    const idle = names.filter((name) => recent(name) === 0);
    opsEmpty.hidden = active.length > 0;
    opsEmpty.textContent = names.length === 0 ? 'No request served yet.'
      : s.history.length ? 'No request in the last 3 minutes.' : 'Collecting…';
    opsTable.hidden = active.length === 0;
    opsIdle.hidden = idle.length === 0;
    opsIdle.replaceChildren(`${active.length ? 'No request in the last 3 minutes' : 'Since start'}: `,
      ...idle.flatMap((name, i) => [i ? ', ' : '', el('code', {}, name), ` ${totalText(ops[name])}`]));
    const rows = active.map((name) => {
      const op = opRow(name);
      const pick = (f) => seriesOf((h) => {
        const o = h.operations[name];
        return o ? f(o) : null;
      });
      op.rate.update([seriesOf((h) => h.operations[name]?.rate ?? 0)]);
      op.latency.update(['p50', 'p95', 'p99'].map((q) => pick((o) => o[q])));
      op.errors.update([seriesOf((h) => h.operations[name]?.errorRate ?? 0)]);
      op.total.textContent = totalText(ops[name]);
      return op.row;
    });
    opsBody.replaceChildren(...rows);
  }

  function opRow(name) {
    if (s.ops.has(name)) return s.ops.get(name);
    const rate = lineChart({ title: `${name} requests/s`, series: [{ name: '', className: 'dv-s-rate' }],
      format: formatRate, compact: true, points: POINTS });
    const latency = lineChart({ title: `${name} latency`, series: LATENCY_SERIES, format: formatSeconds, compact: true,
      points: POINTS });
    const errors = lineChart({ title: `${name} errors/s`, series: [{ name: '', className: 'dv-s-errors' }],
      format: formatRate, compact: true, points: POINTS });
    const total = el('td', { class: 'dv-num', 'data-label': 'Since start' });
    const row = el('tr', { 'data-operation': name }, el('th', { scope: 'row' }, name),
      el('td', { 'data-label': 'Requests/s' }, rate.element), el('td', { 'data-label': 'Latency' }, latency.element),
      el('td', { 'data-label': 'Errors/s' }, errors.element), total);
    const op = { row, rate, latency, errors, total };
    s.ops.set(name, op);
    return op;
  }

  // ---- controls -----------------------------------------------------------------
  function togglePause() {
    s.paused = !s.paused;
    if (s.paused) {
      cancel();
      gap();
    } else {
      schedule(0);
    }
    showState();
  }
  function retry() {
    s.stopped = false;
    s.failures = 0;
    showState();
    schedule(0);
  }
  function onVisibility() {
    if (hidden()) {
      cancel();
      gap();
    } else {
      schedule(0);
    }
    showState();
  }
  document.addEventListener('visibilitychange', onVisibility);

  showState();
  schedule(0);

  return {
    unmount() {
      s.alive = false;
      cancel();
      document.removeEventListener('visibilitychange', onVisibility);
      root.remove();
    },
  };
}

// "1,234" or "1,234 (5 errors)": an operation's counts since the start.
function totalText(op) {
  const n = Number(op?.requests ?? 0).toLocaleString('en-US');
  const e = Number(op?.errors ?? 0);
  return e ? `${n} (${e.toLocaleString('en-US')} error${e === 1 ? '' : 's'})` : n;
}

function formatUptime(sec) {
  const v = Number(sec) || 0;
  if (v < 90) return `${Math.round(v)} s`;
  if (v < 5400) return `${Math.round(v / 60)} min`;
  if (v < 172800) return `${(v / 3600).toFixed(1)} h`;
  return `${(v / 86400).toFixed(1)} days`;
}
