// The Tables view: every table of the namespace with its item count, size,
// billing mode, key schema, indexes (global and local, each with its keys:
// a global index may have up to four partition and four sort attributes),
// stream and time-to-live status; links to its items, graph and stream;
// create (create_table.js) and delete (after typing the table's name).
// Nothing refreshes by itself: Refresh, or a create or delete, reloads.
import { h, clear, errorBox, openDialog, field, announce, formatBytes, formatCount, keySchemaText, billingText } from './dom.js';

const CONCURRENCY = 8;

export async function mount(container, ctx) {
  let alive = true;
  const list = h('div', { class: 'tables-list', 'aria-live': 'polite', 'aria-busy': 'true' });
  const count = h('span', { class: 'muted' });
  const refresh = h('button', { type: 'button', class: 'secondary', onclick: () => load() }, 'Refresh');
  const create = h('button', {
    type: 'button', class: 'primary', onclick: async () => {
      const { openCreateTable } = await import('./create_table.js');  // loaded when first asked for
      const name = await openCreateTable(ctx);
      if (name) {
        announce(`Created table ${name}`);
        await load();
        list.querySelector(`[data-table="${CSS.escape(name)}"] a`)?.focus();
      }
    },
  }, 'Create table');
  clear(container, h('section', { class: 'panel' },
    h('div', { class: 'view-head' }, h('h1', {}, 'Tables ', count), h('div', { class: 'actions' }, create, refresh)),
    list));

  async function load() {
    list.setAttribute('aria-busy', 'true');
    refresh.disabled = true;
    try {
      const names = await listTables(ctx);
      const described = await mapLimit(names, CONCURRENCY, (name) => describe(ctx, name));
      if (!alive) return;
      count.textContent = `(${names.length})`;
      clear(list, names.length ? renderTable(described, ctx, load) : h('p', { class: 'empty' },
        'No tables in this namespace yet. ', h('button', { type: 'button', class: 'link', onclick: () => create.click() }, 'Create one'), '.'));
    } catch (e) {
      if (alive) clear(list, errorBox(e));
    } finally {
      list.setAttribute('aria-busy', 'false');
      refresh.disabled = false;
    }
  }
  await load();
  return { unmount() { alive = false; } };
}

// Every table name of the namespace (ListTables, page after page).
export async function listTables(ctx) {
  const names = [];
  let start;
  do {
    const { data } = await ctx.call('ListTables', start ? { ExclusiveStartTableName: start } : {});
    names.push(...(data.TableNames ?? []));
    start = data.LastEvaluatedTableName;
  } while (start);
  return names;
}

// DescribeTable and DescribeTimeToLive of one table; an error is kept with it.
async function describe(ctx, name) {
  try {
    const [{ data: d }, ttl] = await Promise.all([
      ctx.call('DescribeTable', { TableName: name }),
      ctx.call('DescribeTimeToLive', { TableName: name }).then((r) => r.data.TimeToLiveDescription, (e) => ({ error: e })),
    ]);
    return { name, table: d.Table, ttl };
  } catch (e) {
    return { name, error: e };
  }
}

async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function indexList(t) {
  const defs = t.AttributeDefinitions ?? [];
  const rows = [];
  for (const [kind, list] of [['GSI', t.GlobalSecondaryIndexes], ['LSI', t.LocalSecondaryIndexes]]) {
    for (const ix of list ?? []) {
      const proj = ix.Projection?.ProjectionType ?? 'ALL';
      const include = ix.Projection?.NonKeyAttributes?.length ? ` (${ix.Projection.NonKeyAttributes.join(', ')})` : '';
      const status = ix.IndexStatus && ix.IndexStatus !== 'ACTIVE' ? ` · ${ix.IndexStatus}` : '';
      rows.push(h('li', {},
        h('span', { class: 'badge', title: kind === 'GSI' ? 'Global secondary index' : 'Local secondary index' }, kind), ' ',
        h('strong', {}, ix.IndexName), ': ', keySchemaText(ix.KeySchema, defs),
        h('span', { class: 'muted' }, ` · ${proj}${include}${status}`)));
    }
  }
  return rows.length ? h('ul', { class: 'plain' }, rows) : h('span', { class: 'muted' }, 'none');
}

function streamText(t) {
  const s = t.StreamSpecification;
  return s?.StreamEnabled ? `On · ${s.StreamViewType}` : 'Off';
}

function ttlText(ttl) {
  if (!ttl) return '—';
  if (ttl.error) return `${ttl.error.type}`;
  const st = ttl.TimeToLiveStatus ?? 'DISABLED';
  return ttl.AttributeName ? `${st} · ${ttl.AttributeName}` : st;
}

function renderTable(rows, ctx, reload) {
  const enc = encodeURIComponent;
  const head = ['Table', 'Status', 'Items', 'Size', 'Billing', 'Key', 'Indexes', 'Stream', 'TTL', 'Actions'];
  const body = rows.map(({ name, table: t, ttl, error }) => {
    const del = h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete table ${name}`, onclick: () => deleteTable(ctx, name, reload) }, 'Delete');
    if (error) {
      return h('tr', { 'data-table': name }, h('th', { scope: 'row', 'data-label': 'Table' }, name),
        h('td', { colspan: head.length - 2, 'data-label': 'Error' }, errorBox(error)), h('td', { 'data-label': 'Actions' }, del));
    }
    const links = [
      h('a', { class: 'button small', href: `#/table/${enc(name)}/items`, 'aria-label': `Items of ${name}` }, 'Items'),
      h('a', { class: 'button small secondary', href: `#/graph/${enc(name)}`, 'aria-label': `Graph of ${name}` }, 'Graph'),
      t.StreamSpecification?.StreamEnabled
        ? h('a', { class: 'button small secondary', href: `#/streams/${enc(name)}`, 'aria-label': `Stream of ${name}` }, 'Stream') : null,
      del,
    ];
    return h('tr', { 'data-table': name },
      h('th', { scope: 'row', 'data-label': 'Table' }, h('a', { href: `#/table/${enc(name)}/items` }, name)),
      h('td', { 'data-label': 'Status' }, t.TableStatus),
      h('td', { 'data-label': 'Items', class: 'num' }, formatCount(t.ItemCount)),
      h('td', { 'data-label': 'Size', class: 'num' }, formatBytes(t.TableSizeBytes)),
      h('td', { 'data-label': 'Billing' }, billingText(t)),
      h('td', { 'data-label': 'Key' }, keySchemaText(t.KeySchema, t.AttributeDefinitions)),
      h('td', { 'data-label': 'Indexes' }, indexList(t)),
      h('td', { 'data-label': 'Stream' }, streamText(t)),
      h('td', { 'data-label': 'TTL' }, ttlText(ttl)),
      h('td', { 'data-label': 'Actions' }, h('div', { class: 'row-actions' }, links)));
  });
  return h('div', { class: 'table-scroll' }, h('table', { class: 'data responsive' },
    h('caption', { class: 'offscreen' }, 'Tables of this namespace'),
    h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, body)));
}

// Deletes a table once its name is typed into the confirmation.
async function deleteTable(ctx, name, reload) {
  const input = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const actions = [{ label: 'Delete table', value: 'delete', primary: true, danger: true, disabled: true }];
  const body = [
    h('p', {}, 'This deletes the table ', h('strong', {}, name), ', all its items, its indexes and its stream. It cannot be undone.'),
    field(`Type the table's name (${name}) to confirm`, input),
  ];
  const done = await openDialog({
    title: `Delete table ${name}?`, body, actions,
    onOpen: (dlg) => {
      const btn = dlg.querySelector('button[data-action="delete"]');
      input.addEventListener('input', () => { btn.disabled = input.value !== name; });
    },
    onSubmit: async () => {
      if (input.value !== name) throw new Error(`Type ${name} exactly to confirm`);
      await ctx.call('DeleteTable', { TableName: name });
    },
  });
  if (done) {
    announce(`Deleted table ${name}`);
    await reload();
  }
}
