// Rates and latency percentiles from two snapshots of the server's cumulative
// counters (GET /_dynarock/metrics), for the metrics view. No DOM.
//
//   snapshot: { uptime_seconds, requests, errors,
//               operations: { Query: { requests, errors,
//                 latency_buckets: [{ le: 0.00001, count }, ..., { le: '+Inf', count }] } } }
//   const d = delta(previous, current);   // null when the server restarted
//   d.overall -> { requests, errors, rate, errorRate, p50, p95, p99, overflow }
//   d.operations.Query -> the same for one operation
//
// Bucket counts may be cumulative in `le` (Prometheus' convention: each counts
// the requests at most that long, the +Inf bucket all of them) or per bucket;
// both are read, told apart by the +Inf bucket holding every request.
// Latencies are in seconds.

export const QUANTILES = [['p50', 0.5], ['p95', 0.95], ['p99', 0.99]];

const bound = (le) => (le === '+Inf' || le === 'Inf' || le === Infinity || le === null ? Infinity : Number(le));

// The buckets sorted by bound, counts made cumulative in `le`.
export function cumulativeBuckets(buckets, requests) {
  const b = (buckets ?? []).map((x) => ({ le: bound(x.le), count: Number(x.count) || 0 }))
    .filter((x) => !Number.isNaN(x.le)).sort((x, y) => x.le - y.le);
  if (b.length === 0) return b;
  let nondecreasing = true;
  for (let i = 1; i < b.length; i++) if (b[i].count < b[i - 1].count) nondecreasing = false;
  const last = b[b.length - 1].count;
  const sum = b.reduce((acc, x) => acc + x.count, 0);
  // Cumulative: never decreasing, and the last bucket holds every request
  // (when the total is known) — per-bucket counts that look the same mean the
  // same thing.
  const cumulative = nondecreasing && (requests === undefined || requests === null ? true
    : last === Number(requests) || sum !== Number(requests));
  if (cumulative) return b;
  let run = 0;
  return b.map((x) => ({ le: x.le, count: (run += x.count) }));
}

// The q-quantile of cumulative buckets, interpolated linearly inside its
// bucket (as Prometheus' histogram_quantile); null without requests. When it
// falls in the +Inf bucket: the highest finite bound, with overflow = true.
export function quantile(q, buckets) {
  if (!buckets.length) return { value: null, overflow: false };
  const total = buckets[buckets.length - 1].count;
  if (total <= 0) return { value: null, overflow: false };
  const rank = q * total;
  for (let i = 0; i < buckets.length; i++) {
    if (buckets[i].count >= rank) {
      const lowerLe = i === 0 ? 0 : buckets[i - 1].le;
      const lowerCount = i === 0 ? 0 : buckets[i - 1].count;
      if (buckets[i].le === Infinity) return { value: i === 0 ? null : lowerLe, overflow: true };
      const inBucket = buckets[i].count - lowerCount;
      const within = inBucket > 0 ? (rank - lowerCount) / inBucket : 1;
      return { value: lowerLe + (buckets[i].le - lowerLe) * within, overflow: false };
    }
  }
  return { value: buckets[buckets.length - 1].le, overflow: false };
}

function subtractBuckets(cur, prev) {
  const before = new Map(prev.map((x) => [x.le, x.count]));
  return cur.map((x) => ({ le: x.le, count: Math.max(0, x.count - (before.get(x.le) ?? 0)) }));
}

// The rates and percentiles of one counter set between two snapshots.
function figures(cur, prev, dt) {
  const requests = Number(cur?.requests ?? 0) - Number(prev?.requests ?? 0);
  const errors = Number(cur?.errors ?? 0) - Number(prev?.errors ?? 0);
  const out = { requests, errors, rate: requests / dt, errorRate: errors / dt, overflow: false };
  const buckets = subtractBuckets(cumulativeBuckets(cur?.latency_buckets, cur?.requests),
    cumulativeBuckets(prev?.latency_buckets, prev?.requests));
  for (const [name, q] of QUANTILES) {
    const { value, overflow } = quantile(q, buckets);
    out[name] = value;
    out.overflow = out.overflow || overflow;
  }
  return out;
}

// The overall latency buckets: the sum of every operation's (when the
// snapshot has no overall ones).
export function overallBuckets(snapshot) {
  if (snapshot?.latency_buckets) return snapshot.latency_buckets;
  const sum = new Map();
  for (const op of Object.values(snapshot?.operations ?? {})) {
    for (const b of cumulativeBuckets(op.latency_buckets, op.requests)) sum.set(b.le, (sum.get(b.le) ?? 0) + b.count);
  }
  return [...sum].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count }));
}

// What happened between two snapshots; null when there is no previous one or
// the server restarted in between (its uptime or counters went back).
export function delta(prev, cur) {
  if (!prev || !cur) return null;
  const dt = Number(cur.uptime_seconds) - Number(prev.uptime_seconds);
  if (!(dt > 0) || Number(cur.requests) < Number(prev.requests)) return null;
  const overall = figures({ requests: cur.requests, errors: cur.errors, latency_buckets: overallBuckets(cur) },
    { requests: prev.requests, errors: prev.errors, latency_buckets: overallBuckets(prev) }, dt);
  const operations = {};
  for (const [name, op] of Object.entries(cur.operations ?? {})) {
    operations[name] = figures(op, prev.operations?.[name], dt);
  }
  return { dt, overall, operations };
}

// "1.50" -> "1.5", "2.00" -> "2", "100" stays.
const trim = (t) => (t.includes('.') && !t.includes('e') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);

// A duration in seconds as text: µs, ms or s with 3 significant digits.
export function formatSeconds(v, overflow = false) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  const pre = overflow ? '>' : '';
  if (v < 0.001) return `${pre}${trim((v * 1e6).toPrecision(3))} µs`;
  if (v < 1) return `${pre}${trim((v * 1e3).toPrecision(3))} ms`;
  return `${pre}${trim(v.toPrecision(3))} s`;
}

// A rate per second as text.
export function formatRate(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  if (v === 0) return '0/s';
  if (v < 10) return `${trim(v.toFixed(2))}/s`;
  if (v < 1000) return `${trim(v.toFixed(1))}/s`;
  return `${Math.round(v).toLocaleString('en-US')}/s`;
}
