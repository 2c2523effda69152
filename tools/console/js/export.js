// Exports of the items loaded in the grid (the current result, every page
// loaded so far) as JSON lines (one DynamoDB JSON item a line, the format of
// DynamoDB's S3 exports without the "Item" wrapper) or CSV (RFC 4180: one
// column per attribute, each header "name (TYPE)" when the column holds one
// type, values as the grid shows them), downloaded through a Blob; and the
// bulk delete of selected items (BatchWriteItem, 25 at a time, retrying
// UnprocessedItems with backoff).
import { download } from './dom.js';
import { typeOf, displayValue } from './dynamo_json.js';

export function toJsonLines(items) {
  return items.map((it) => JSON.stringify(it)).join('\n') + (items.length ? '\n' : '');
}

const csvCell = (s) => (/[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export function toCsv(items, columns) {
  const header = columns.map((c) => {
    const types = new Set(items.map((it) => typeOf(it[c])).filter(Boolean));
    return csvCell(types.size === 1 ? `${c} (${[...types][0]})` : c);
  });
  const rows = items.map((it) => columns.map((c) => csvCell(it[c] ? displayValue(it[c]) : '')).join(','));
  return [header.join(','), ...rows].join('\r\n') + '\r\n';
}

const stamp = () => new Date().toISOString().replace(/[:]/g, '').replace(/\..*/, '');

export function exportJsonLines(items, table) {
  const name = `${table}-${stamp()}.jsonl`;
  download(name, toJsonLines(items), 'application/x-ndjson');
  return name;
}

export function exportCsv(items, columns, table) {
  const name = `${table}-${stamp()}.csv`;
  download(name, toCsv(items, columns), 'text/csv');
  return name;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Deletes `keys` from `table` with BatchWriteItem, 25 per request; the
// UnprocessedItems of a reply are sent again (up to 8 tries, backing off).
// onProgress(done, total). Resolves to { deleted, failed, facts: [...] };
// an API error stops it (thrown, with .deleted saying how far it got).
export async function batchDelete(ctx, table, keys, onProgress) {
  const facts = [];
  let deleted = 0;
  for (let i = 0; i < keys.length; i += 25) {
    let pending = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt >= 8) {
        return { deleted, failed: keys.length - deleted, facts };
      }
      if (attempt) await sleep(Math.min(2000, 50 * 2 ** attempt));
      let r;
      try {
        r = await ctx.call('BatchWriteItem', { RequestItems: { [table]: pending }, ReturnConsumedCapacity: 'INDEXES' }, { explain: true });
      } catch (e) {
        e.deleted = deleted;
        throw e;
      }
      facts.push(r.explain ?? { operation: 'BatchWriteItem', table, client_ms: r.ms, consumed: consumedOf(r.data) });
      const left = r.data.UnprocessedItems?.[table] ?? [];
      deleted += pending.length - left.length;
      pending = left;
      onProgress?.(deleted, keys.length);
    }
  }
  return { deleted, failed: 0, facts };
}

// The ConsumedCapacity of a reply in the explain facts' shape.
export function consumedOf(data) {
  const cc = data?.ConsumedCapacity;
  const list = Array.isArray(cc) ? cc : cc ? [cc] : [];
  return list.map((c) => ({
    table: c.TableName, units: c.CapacityUnits,
    indexes: Object.fromEntries(Object.entries({ ...(c.GlobalSecondaryIndexes ?? {}), ...(c.LocalSecondaryIndexes ?? {}) }).map(([k, v]) => [k, v.CapacityUnits])),
  }));
}
