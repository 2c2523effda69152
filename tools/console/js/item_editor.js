// The item editor: a new item or an existing one, as DynamoDB JSON or plain
// JSON (a toggle; how plain JSON maps to DynamoDB's types is explained in the
// dialog), validated before it is sent (JSON syntax with line and column, one
// type per attribute value) and saved with PutItem; what the API refuses is
// shown as it says it (error type and message). An existing item can also be
// deleted from here.
//
//   const r = await openItemEditor(ctx, table, item);  // null, or
//   // { action: 'saved' | 'deleted', item, key, facts, response, ms }
import { h, clear, errorBox, openDialog, newId } from './dom.js';
import {
  parseExact, stringifyExact, formatItemText, itemFromPlain, itemToPlain, unplainable, validateItem, keyOf, typeOf, Num, displayValue,
} from './dynamo_json.js';

const MODE_KEY = 'dynarock.console.editorMode';

const MAPPING = [
  ['"text"', 'S', 'string'], ['12.50 (digits kept exactly)', 'N', 'number'], ['true / false', 'BOOL', 'boolean'],
  ['null', 'NULL', ''], ['[1, "a"]', 'L', 'list'], ['{"k": 1}', 'M', 'map'],
];

function mappingHelp() {
  return h('details', { class: 'mapping' }, h('summary', {}, 'How plain JSON maps to DynamoDB types'),
    h('table', { class: 'data compact' }, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Plain JSON'), h('th', { scope: 'col' }, 'DynamoDB type'))),
      h('tbody', {}, MAPPING.map(([j, t, n]) => h('tr', {}, h('td', {}, h('code', {}, j)), h('td', {}, h('span', { class: `t t-${t}` }, t), n ? ` ${n}` : ''))))),
    h('p', { class: 'hint' }, 'Sets (SS, NS, BS) and binary (B) have no plain JSON form: an item holding one is edited as DynamoDB JSON. ',
      'In DynamoDB JSON every value names its type: {"price": {"N": "12.5"}, "tags": {"SS": ["a", "b"]}}.'));
}

// A starting item for a new one: its key attributes, empty.
function template(table) {
  const types = Object.fromEntries((table.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]));
  const item = {};
  for (const k of table.KeySchema) {
    const t = types[k.AttributeName] ?? 'S';
    item[k.AttributeName] = { [t]: t === 'N' ? '0' : '' };
  }
  return item;
}

// The DynamoDB item the text holds in `mode`; throws Error with every problem.
export function parseItem(text, mode) {
  let v;
  try {
    v = parseExact(text);
  } catch (e) {
    throw Object.assign(new Error(e.message), { type: 'Invalid JSON' });
  }
  let item;
  if (mode === 'plain') {
    try {
      item = itemFromPlain(v);
    } catch (e) {
      throw Object.assign(new Error(e.message), { type: 'Invalid item' });
    }
  } else {
    // DynamoDB JSON holds numbers as strings; a bare number is a mistake to report.
    item = JSON.parse(stringifyExact(v, 0));
    const numbers = [];
    (function find(x, path) {
      if (x instanceof Num) numbers.push(path);
      else if (x && typeof x === 'object') for (const [k, y] of Object.entries(x)) find(y, path ? `${path}.${k}` : k);
    })(v, '');
    const problems = validateItem(item);
    if (numbers.length && !problems.length) problems.push(`${numbers[0]}: numbers are strings in DynamoDB JSON ({"N": "12"})`);
    if (problems.length) throw Object.assign(new Error(problems.join('\n')), { type: 'Invalid item', problems });
  }
  return item;
}

const sameKey = (a, b) => JSON.stringify(a) === JSON.stringify(b);

export async function openItemEditor(ctx, table, existing = null) {
  const keyNames = table.KeySchema.map((k) => k.AttributeName);
  const originalKey = existing ? keyOf(existing, keyNames) : null;
  let mode = localStorage.getItem(MODE_KEY) === 'plain' ? 'plain' : 'dynamodb';
  const start = existing ?? template(table);
  if (mode === 'plain' && unplainable({ M: start })) mode = 'dynamodb';

  const text = h('textarea', { class: 'code', spellcheck: 'false', autocomplete: 'off', 'aria-label': 'Item', rows: '16', wrap: 'off', autofocus: true });
  const status = h('div', { class: 'editor-status', 'aria-live': 'polite' });
  const radioName = newId('mode');
  const ddbRadio = h('input', { type: 'radio', name: radioName, value: 'dynamodb', checked: mode === 'dynamodb' });
  const plainRadio = h('input', { type: 'radio', name: radioName, value: 'plain', checked: mode === 'plain' });
  const show = (item) => {
    // Key attributes first, then the others as they come.
    const ordered = {};
    for (const k of keyNames) if (k in item) ordered[k] = item[k];
    Object.assign(ordered, item);
    text.value = formatItemText(mode === 'plain' ? itemToPlain(ordered) : ordered);
  };
  show(start);

  const switchTo = (next) => {
    if (next === mode) return;
    try {
      const item = parseItem(text.value, mode);
      const bad = next === 'plain' ? unplainable({ M: item }) : null;
      if (bad) {
        throw Object.assign(new Error(`${bad.path} is ${bad.type}, which plain JSON cannot express; keep editing it as DynamoDB JSON`), { type: 'Not plain' });
      }
      mode = next;
      localStorage.setItem(MODE_KEY, mode);
      show(item);
      clear(status);
    } catch (e) {
      (mode === 'plain' ? plainRadio : ddbRadio).checked = true;
      clear(status, errorBox(e));
    }
  };
  ddbRadio.addEventListener('change', () => switchTo('dynamodb'));
  plainRadio.addEventListener('change', () => switchTo('plain'));

  const validate = () => {
    try {
      const item = parseItem(text.value, mode);
      const types = Object.entries(item).map(([k, v]) => `${k}: ${typeOf(v)}`).join(', ');
      clear(status, h('div', { class: 'success' }, `Valid: ${Object.keys(item).length} attributes (${types})`));
      return item;
    } catch (e) {
      clear(status, errorBox(e));
      return null;
    }
  };

  // Ctrl+Enter saves; Tab still moves focus (no keyboard trap), Escape leaves.
  text.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      text.form?.requestSubmit();
    }
  });

  const keyText = existing ? keyNames.map((k) => `${k} = ${displayValue(existing[k])} (${typeOf(existing[k])})`).join(', ') : '';
  const body = h('div', { class: 'item-editor' },
    existing ? h('p', { class: 'muted' }, `Key: ${keyText}`) : null,
    h('div', { class: 'row spread' },
      h('fieldset', { class: 'inline' }, h('legend', {}, 'Format'), h('label', {}, ddbRadio, ' DynamoDB JSON'), h('label', {}, plainRadio, ' Plain JSON')),
      h('button', { type: 'button', class: 'small secondary', onclick: validate }, 'Validate')),
    text, h('p', { class: 'hint' }, 'Ctrl+Enter saves; Escape closes without saving.'), status, mappingHelp());

  let result = null;
  let confirmedNewKey = false;
  const actions = [];
  if (existing) actions.push({ label: 'Delete item', value: 'delete', danger: true });
  actions.push({ label: 'Save (PutItem)', value: 'save', primary: true });

  await openDialog({
    title: existing ? 'Edit item' : 'New item', body, actions, wide: true,
    onSubmit: async (action, { dialog }) => {
      if (action === 'delete') {
        const r = await ctx.call('DeleteItem', { TableName: table.TableName, Key: originalKey, ReturnConsumedCapacity: 'INDEXES' }, { explain: true });
        result = { action: 'deleted', item: existing, key: originalKey, facts: r.explain, response: r.data, ms: r.ms, request: { TableName: table.TableName } };
        return true;
      }
      const item = parseItem(text.value, mode);  // throws: shown in the dialog
      const key = keyOf(item, keyNames);
      if (existing && !sameKey(key, originalKey) && !confirmedNewKey) {
        confirmedNewKey = true;
        const save = dialog.querySelector('button[data-action="save"]');
        if (save) save.textContent = 'Save as a new item';
        throw Object.assign(new Error('The key changed: saving writes a new item and leaves the original in place. Save again to go ahead.'), { type: 'Key changed' });
      }
      const request = { TableName: table.TableName, Item: item, ReturnConsumedCapacity: 'INDEXES' };
      const r = await ctx.call('PutItem', request, { explain: true });
      result = { action: 'saved', item, key, facts: r.explain, response: r.data, ms: r.ms, request };
      return true;
    },
  });
  return result;
}
