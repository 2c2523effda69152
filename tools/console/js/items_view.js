// The Items / Query view of one table: the query builder (query_builder.js)
// and its equivalent AWS CLI, boto3 and PartiQL (equivalents.js), the result
// grid (grid.js) paged with LastEvaluatedKey ("Load more"), the explain and
// cost panel beside it (explain_panel.js), the item editor (item_editor.js),
// delete and bulk delete, and exports of the loaded result (export.js).
// Without a table (#/items) it lists the tables to pick one.
import { h, clear, errorBox, showError, announce, confirmAction, formatCount, keySchemaText, billingText } from './dom.js';
import { endpoint, getNamespace } from './api.js';
import { createQueryBuilder } from './query_builder.js';
import { equivalents, renderEquivalents } from './equivalents.js';
import { createGrid } from './grid.js';
import { createExplainPanel, combineFacts } from './explain_panel.js';
import { openItemEditor } from './item_editor.js';
import { exportJsonLines, exportCsv, batchDelete } from './export.js';
import { keyOf } from './dynamo_json.js';
import { listTables } from './tables_view.js';

export async function mount(container, ctx) {
  if (!ctx.table) return mountPicker(container, ctx);
  let table;
  try {
    table = (await ctx.call('DescribeTable', { TableName: ctx.table })).data.Table;
  } catch (e) {
    clear(container, h('section', { class: 'panel' }, h('h1', {}, ctx.table), errorBox(e),
      h('p', {}, h('a', { href: '#/tables' }, 'Back to the tables'))));
    return { unmount() {} };
  }
  return mountTable(container, ctx, table);
}

// The equivalents, folded or not as the user last left them.
function equivalentDetails(content) {
  const KEY = 'dynarock.console.equivalentsOpen';
  const d = h('details', { class: 'equivalent', open: localStorage.getItem(KEY) === '1' },
    h('summary', {}, 'Equivalent AWS CLI, boto3 and PartiQL'), content);
  d.addEventListener('toggle', () => localStorage.setItem(KEY, d.open ? '1' : '0'));
  return d;
}

async function mountPicker(container, ctx) {
  const list = h('div', {}, h('p', { class: 'loading' }, 'Loading tables…'));
  clear(container, h('section', { class: 'panel' }, h('h1', {}, 'Items / Query'), h('p', {}, 'Pick a table:'), list));
  try {
    const names = await listTables(ctx);
    clear(list, names.length
      ? h('ul', { class: 'table-picker' }, names.map((n) => h('li', {}, h('a', { href: `#/table/${encodeURIComponent(n)}/items` }, n))))
      : h('p', { class: 'empty' }, 'No tables yet. ', h('a', { href: '#/tables' }, 'Create one in Tables.')));
  } catch (e) {
    clear(list, errorBox(e));
  }
  return { unmount() {} };
}

function mountTable(container, ctx, table) {
  let alive = true;
  const tableKeys = table.KeySchema.map((k) => k.AttributeName);
  const state = { operation: null, request: null, lastKey: null, loading: false, sortKey: null };
  const sameKey = (a, b) => tableKeys.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));

  const explain = createExplainPanel();
  const eq = renderEquivalents();
  const resultError = h('div', { 'aria-live': 'assertive' });
  const resultInfo = h('span', { class: 'result-info', role: 'status' }, 'Not run yet.');
  const loadMore = h('button', { type: 'button', class: 'secondary', disabled: true, onclick: () => fetchPage(false) }, 'Load more');
  const deleteSelected = h('button', { type: 'button', class: 'danger', disabled: true, onclick: () => bulkDelete() }, 'Delete selected');
  const exportJl = h('button', { type: 'button', class: 'secondary', disabled: true, onclick: () => doExport('jsonl') }, 'Export JSON lines');
  const exportCsvBtn = h('button', { type: 'button', class: 'secondary', disabled: true, onclick: () => doExport('csv') }, 'Export CSV');
  const newItem = h('button', { type: 'button', class: 'primary', onclick: () => edit(null) }, 'New item');

  const grid = createGrid({
    onOpen: (item) => edit(item),
    onDelete: (item) => deleteOne(item),
    onSelectionChange: (n) => {
      deleteSelected.disabled = n === 0;
      deleteSelected.textContent = n ? `Delete selected (${n})` : 'Delete selected';
    },
  });

  const builder = createQueryBuilder(table, {
    params: ctx.params, onRun: () => run(), onChange: () => scheduleEquivalents(),
  });

  let eqTimer = 0;
  function scheduleEquivalents() {
    clearTimeout(eqTimer);
    eqTimer = setTimeout(updateEquivalents, 150);
  }
  function updateEquivalents(built) {
    try {
      const { operation, request } = built ?? builder.build();
      const sortKey = builder.keys().range[0]?.name ?? null;
      eq.update(equivalents(operation, request, { endpoint, namespace: getNamespace(), requireAuth: ctx.info?.require_auth, sortKey }));
    } catch (e) {
      eq.error(e.message);
    }
  }

  const meta = h('p', { class: 'muted table-meta' },
    `Key: ${keySchemaText(table.KeySchema, table.AttributeDefinitions)} · ${formatCount(table.ItemCount)} items · ${billingText(table)}`,
    table.StreamSpecification?.StreamEnabled ? [' · ', h('a', { href: `#/streams/${encodeURIComponent(table.TableName)}` }, `stream ${table.StreamSpecification.StreamViewType}`)] : null);

  clear(container, h('div', { class: 'items-layout' },
    h('div', { class: 'items-main' },
      h('section', { class: 'panel' },
        h('div', { class: 'view-head' }, h('h1', {}, table.TableName), h('div', { class: 'actions' }, newItem)),
        meta, builder.el,
        equivalentDetails(eq.el)),
      h('section', { class: 'panel results', 'aria-label': 'Results' },
        h('div', { class: 'view-head' }, h('h2', {}, 'Results'),
          h('div', { class: 'actions' }, deleteSelected, exportJl, exportCsvBtn)),
        resultError, grid.el,
        h('div', { class: 'result-foot' }, resultInfo, loadMore),
        h('p', { class: 'hint' }, 'Keyboard: Tab to the grid, then ↑ ↓ PgUp PgDn Home End to move, Space to select, Enter to edit, Delete to delete.'))),
    h('aside', { class: 'items-aside', 'aria-label': 'Explain and cost' }, explain.el)));
  updateEquivalents();

  function setInfo() {
    const n = grid.items().length;
    resultInfo.textContent = `${formatCount(n)} item${n === 1 ? '' : 's'} loaded${state.lastKey ? ' · more to read' : state.request ? ' · all read' : ''}`;
    loadMore.disabled = !state.lastKey || state.loading;
    exportJl.disabled = exportCsvBtn.disabled = n === 0;
  }

  async function run() {
    let built;
    try {
      built = builder.build();
    } catch (e) {
      showError(resultError, e);
      return;
    }
    updateEquivalents(built);
    state.operation = built.operation;
    state.request = built.request;
    state.lastKey = null;
    history.replaceState(null, '', `#/table/${encodeURIComponent(table.TableName)}/items?${new URLSearchParams(builder.routeParams())}`);
    await fetchPage(true);
  }

  async function fetchPage(first) {
    if (state.loading || !state.request) return;
    state.loading = true;
    loadMore.disabled = true;
    showError(resultError, null);
    const request = { ...state.request, ReturnConsumedCapacity: 'INDEXES' };
    if (!first && state.lastKey) request.ExclusiveStartKey = state.lastKey;
    try {
      const r = await ctx.call(state.operation, request, { explain: true });
      if (!alive) return;
      const items = r.data.Items ?? [];
      const keys = [...tableKeys, ...builder.keys().hash.map((a) => a.name), ...builder.keys().range.map((a) => a.name)]
        .filter((k, i, a) => a.indexOf(k) === i);
      if (first) {
        explain.reset();
        grid.setData(items, keys);
      } else {
        grid.append(items);
      }
      state.lastKey = r.data.LastEvaluatedKey ?? null;
      explain.page({ facts: r.explain, operation: state.operation, request, response: r.data, clientMs: r.ms });
      announce(`${items.length} item${items.length === 1 ? '' : 's'} read${state.lastKey ? '; more to load' : ''}`);
    } catch (e) {
      if (alive) {
        showError(resultError, e);
        explain.reset();
        explain.message(`The ${state.operation} was refused (${e.type ?? 'error'}): nothing was read.`);
      }
      if (first) state.lastKey = null;
    } finally {
      state.loading = false;
      if (alive) setInfo();
    }
  }

  async function edit(item) {
    const r = await openItemEditor(ctx, table, item);
    if (!r || !alive) return;
    if (r.action === 'saved') {
      const i = grid.upsert(r.item, sameKey);
      explain.write({ facts: r.facts, operation: 'PutItem', request: r.request, response: r.response, clientMs: r.ms });
      announce('Item saved');
      grid.focusRow(i);
    } else {
      grid.remove([item]);
      explain.write({ facts: r.facts, operation: 'DeleteItem', request: r.request, response: r.response, clientMs: r.ms });
      announce('Item deleted');
    }
    setInfo();
  }

  async function deleteOne(item) {
    const key = keyOf(item, tableKeys);
    if (!(await confirmAction('Delete this item?', `Delete the item ${JSON.stringify(key)} from ${table.TableName}?`))) return;
    try {
      const request = { TableName: table.TableName, Key: key, ReturnConsumedCapacity: 'INDEXES' };
      const r = await ctx.call('DeleteItem', request, { explain: true });
      grid.remove([item]);
      explain.write({ facts: r.explain, operation: 'DeleteItem', request, response: r.data, clientMs: r.ms });
      announce('Item deleted');
      setInfo();
    } catch (e) {
      showError(resultError, e);
    }
  }

  async function bulkDelete() {
    const items = grid.selected();
    if (!items.length) return;
    if (!(await confirmAction(`Delete ${items.length} items?`,
      `Delete the ${items.length} selected item${items.length === 1 ? '' : 's'} from ${table.TableName} (BatchWriteItem, 25 at a time)? This cannot be undone.`,
      `Delete ${items.length} items`))) return;
    deleteSelected.disabled = true;
    showError(resultError, null);
    try {
      const r = await batchDelete(ctx, table.TableName, items.map((it) => keyOf(it, tableKeys)),
        (done, total) => { resultInfo.textContent = `Deleting… ${done} of ${total}`; });
      if (r.facts.length) {
        explain.write({ facts: combineFacts(r.facts), operation: 'BatchWriteItem', request: { TableName: table.TableName }, count: r.facts.length });
      }
      if (r.failed) {
        showError(resultError, { type: 'UnprocessedItems', message: `${r.failed} of ${items.length} items were still unprocessed after 8 tries; they were not deleted. Run the query again to see what is left.` });
      } else {
        grid.remove(items);
        announce(`Deleted ${r.deleted} items`);
      }
    } catch (e) {
      showError(resultError, e);
      if (e.deleted) await run();
    } finally {
      setInfo();
    }
  }

  function doExport(kind) {
    const items = grid.items();
    const name = kind === 'csv' ? exportCsv(items, grid.columns(), table.TableName) : exportJsonLines(items, table.TableName);
    announce(`Exported ${items.length} items to ${name}`);
  }

  // A route that names a query (op=Query&pk=...) runs it at once; a bare one scans.
  if (ctx.params?.run !== '0') run();
  return {
    unmount() {
      alive = false;
      clearTimeout(eqTimer);
    },
  };
}
