// "Explain and cost", beside every result: the operation the server ran
// (Query or Scan, of the table or which index), items read ("scanned") and
// returned, why the page ended (its Limit, the 1 MB page size, or the end of
// what there was to read), the read or write capacity consumed per table and
// per index, and the latency; with a warning for a Scan and for a filter that
// threw away most of what was read (paid for, then discarded).
//
// The facts are the server's (request header X-Dynarock-Explain: 1; the reply
// carries the request log's record for that request). From a server that does
// not send them, the panel falls back to the reply's own Count, ScannedCount
// and ConsumedCapacity, and says so.
//
//   const panel = createExplainPanel();
//   panel.reset(); panel.page({ facts, operation, request, response });
//   panel.write({ facts, operation, request, response });
import { h, clear, formatCount, formatUnits, formatBytes } from './dom.js';

const READS = new Set(['Query', 'Scan', 'GetItem', 'BatchGetItem', 'TransactGetItems', 'ExecuteStatement']);
const PAGE_END = {
  limit: "the request's Limit was reached",
  '1MB': '1 MB read, the most one page reads (before any filter)',
  end: 'nothing more to read',
};

// The explain facts in one shape, from the server's record or else the reply.
export function normalize({ facts, operation, request = {}, response = {}, clientMs }) {
  if (facts) {
    return {
      source: 'server', operation: facts.operation ?? operation, table: facts.table ?? request.TableName,
      index: facts.index || null, scanned: facts.items_scanned, returned: facts.items_returned,
      pageEnd: facts.page_end ?? null, filtered: Boolean(facts.filtered ?? request.FilterExpression),
      consumed: (facts.consumed ?? []).map((c) => ({ table: c.table, units: c.units, read: c.read, write: c.write, indexes: c.indexes ?? {} })),
      latencyMs: facts.latency_ms, clientMs: facts.client_ms ?? clientMs, itemBytes: facts.item_bytes, items: facts.items,
      error: facts.error || null,
    };
  }
  const cc = response.ConsumedCapacity;
  const list = Array.isArray(cc) ? cc : cc ? [cc] : [];
  let pageEnd = null;
  if ('Count' in response) {
    if (!response.LastEvaluatedKey) pageEnd = 'end';
    else pageEnd = request.Limit && response.ScannedCount >= request.Limit ? 'limit' : '1MB';
  }
  return {
    source: 'reply', operation, table: request.TableName, index: request.IndexName ?? null,
    scanned: response.ScannedCount, returned: response.Count, pageEnd, filtered: Boolean(request.FilterExpression),
    consumed: list.map((c) => ({
      table: c.TableName, units: c.CapacityUnits, read: c.ReadCapacityUnits, write: c.WriteCapacityUnits,
      indexes: Object.fromEntries(Object.entries({ ...(c.GlobalSecondaryIndexes ?? {}), ...(c.LocalSecondaryIndexes ?? {}) })
        .map(([k, v]) => [k, v.CapacityUnits])),
    })),
    latencyMs: null, clientMs, error: null,
  };
}

const unitName = (op) => (READS.has(op) ? 'RCU' : 'WCU');

// Capacity lines: "Orders: 1.5 RCU", "  index byStatus: 0.5 RCU".
function capacityList(consumed, op) {
  if (!consumed.length) return h('span', { class: 'muted' }, 'not reported');
  const unit = unitName(op);
  return h('ul', { class: 'plain capacity-list' }, consumed.map((c) => {
    // Read and write apart only when a request did both (transactions).
    const split = Number(c.read) > 0 && Number(c.write) > 0
      ? ` (${formatUnits(c.read)} read, ${formatUnits(c.write)} write)` : '';
    return h('li', {}, h('strong', {}, c.table ?? 'table'), `: ${formatUnits(c.units)} ${unit}${split}`,
      Object.keys(c.indexes).length ? h('ul', { class: 'plain indent' }, Object.entries(c.indexes).map(([name, u]) =>
        h('li', {}, `index ${name}: ${formatUnits(u)} ${unit}`))) : null);
  }));
}

const sumUnits = (consumed) => consumed.reduce((a, c) => a + (Number(c.units) || 0), 0);

function dl(rows) {
  return h('dl', { class: 'facts' }, rows.filter(Boolean).map(([k, v, attrs = {}]) => [h('dt', {}, k), h('dd', attrs, v)]));
}

function latencyText(n) {
  const parts = [];
  if (n.latencyMs !== null && n.latencyMs !== undefined) parts.push(`server ${formatUnits(n.latencyMs)} ms`);
  if (n.clientMs !== null && n.clientMs !== undefined) parts.push(`round trip ${formatUnits(n.clientMs)} ms`);
  return parts.join(' · ') || '—';
}

function sourceNote(n) {
  return n.source === 'server' ? null : h('p', { class: 'hint' },
    'This server sent no explain facts (X-Dynarock-Explain); these come from the reply itself.');
}

export function createExplainPanel() {
  const body = h('div', { class: 'explain-body' }, h('p', { class: 'muted' }, 'Run a Scan or Query to see what it read and what it cost.'));
  const el = h('section', { class: 'panel explain', 'aria-labelledby': 'explain-title', 'aria-live': 'polite' },
    h('h2', { id: 'explain-title' }, 'Explain and cost'), body);
  let pages = [];

  function renderRead() {
    const n = pages[pages.length - 1];
    const what = `${n.operation}${n.index ? ` on index ${n.index}` : ` of table ${n.table ?? ''}`}`;
    const ratio = n.scanned ? Math.round((n.returned / n.scanned) * 100) : null;
    const warnings = [];
    if (n.operation === 'Scan') {
      warnings.push(h('div', { class: 'warning', role: 'note' }, h('strong', {}, 'Scan: '),
        `reads the ${n.index ? 'index' : 'table'} item after item and bills every item read, whatever the filter keeps. ` +
        'When you know the partition key, a Query on the table or on an index keyed by what you look for reads only that partition.'));
    }
    if (n.filtered && n.scanned > 0 && n.returned / n.scanned < 0.5) {
      warnings.push(h('div', { class: 'warning', role: 'note' }, h('strong', {}, 'Wasteful filter: '),
        `it discarded ${formatCount(n.scanned - n.returned)} of the ${formatCount(n.scanned)} items read (kept ${ratio}%). ` +
        'A filter applies after the read, so the discarded items were paid for; a key condition, or an index keyed on the filtered attribute, avoids reading them.'));
    }
    const rows = [
      ['Operation', what, { 'data-fact': 'operation' }],
      ['Items scanned', formatCount(n.scanned), { 'data-fact': 'scanned' }],
      ['Items returned', `${formatCount(n.returned)}${ratio !== null ? ` (${ratio}% of scanned)` : ''}`, { 'data-fact': 'returned' }],
      ['Page ended', n.pageEnd ? h('span', {}, h('strong', {}, n.pageEnd), ` — ${PAGE_END[n.pageEnd] ?? ''}`) : '—', { 'data-fact': 'page-end' }],
      ['Consumed capacity', capacityList(n.consumed, n.operation), { 'data-fact': 'consumed' }],
      ['Latency', latencyText(n), { 'data-fact': 'latency' }],
    ];
    const totals = pages.length > 1 ? h('div', { class: 'totals' }, h('h3', {}, `All ${pages.length} pages loaded`), dl([
      ['Items scanned', formatCount(pages.reduce((a, p) => a + (p.scanned ?? 0), 0))],
      ['Items returned', formatCount(pages.reduce((a, p) => a + (p.returned ?? 0), 0))],
      ['Capacity', `${formatUnits(pages.reduce((a, p) => a + sumUnits(p.consumed), 0))} ${unitName(n.operation)}`],
    ])) : null;
    clear(body, h('h3', {}, pages.length > 1 ? `Page ${pages.length}` : 'This page'), warnings, dl(rows), totals, sourceNote(n));
  }

  return {
    el,
    reset() { pages = []; },
    // A page of a Scan or Query (its facts or its reply).
    page(args) {
      pages.push(normalize(args));
      renderRead();
      return pages[pages.length - 1];
    },
    // A write (PutItem, DeleteItem, BatchWriteItem...): what it consumed.
    write(args, label) {
      const n = normalize(args);
      const extra = args.count > 1 ? ` × ${args.count} requests` : '';
      clear(body, h('h3', {}, label ?? `${n.operation}${extra}`), dl([
        ['Operation', `${n.operation} on table ${n.table ?? ''}${extra}`, { 'data-fact': 'operation' }],
        n.itemBytes !== undefined && n.itemBytes !== null ? ['Item size', formatBytes(n.itemBytes)] : null,
        ['Consumed capacity', capacityList(n.consumed, n.operation), { 'data-fact': 'consumed' }],
        ['Latency', latencyText(n), { 'data-fact': 'latency' }],
      ]), sourceNote(n));
      return n;
    },
    message(text) { clear(body, h('p', { class: 'muted' }, text)); },
  };
}

// Several replies' facts as one (a bulk delete's BatchWriteItem calls): their
// capacity added up per table and index, their latencies summed.
export function combineFacts(list) {
  const out = { operation: list[0]?.operation, table: list[0]?.table, consumed: [], latency_ms: 0, client_ms: 0 };
  const byTable = new Map();
  for (const f of list) {
    out.latency_ms += f.latency_ms ?? 0;
    out.client_ms += f.client_ms ?? 0;
    for (const c of f.consumed ?? []) {
      const t = byTable.get(c.table) ?? { table: c.table, units: 0, indexes: {} };
      t.units += Number(c.units) || 0;
      for (const [k, v] of Object.entries(c.indexes ?? {})) t.indexes[k] = (t.indexes[k] ?? 0) + (Number(v) || 0);
      byTable.set(c.table, t);
    }
  }
  out.consumed = [...byTable.values()];
  return out;
}
