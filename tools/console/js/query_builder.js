// The query builder of the Items view: Scan or Query of the table or one of
// its indexes; a value for each partition key attribute (a global index may
// have up to four) and a condition on its sort key attributes (=, <, <=, >,
// >=, between, begins_with); a filter expression with its own names and
// values; a projection; order, consistent read and page size. build() turns
// the form into the DynamoDB request; key and projection attributes always go
// through #name placeholders, so reserved words ("status", "name") just work.
//
//   const qb = createQueryBuilder(table, { onRun, onChange, params });
//   const { operation, request } = qb.build();   // throws Error on bad input
import { h, field, newId } from './dom.js';
import { parseExact, typeOf, fromPlain, validateItem } from './dynamo_json.js';

const SORT_OPS = [['', 'no condition'], ['=', '='], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>='],
  ['between', 'between'], ['begins_with', 'begins with']];

// The key schema of the table or of one of its indexes: { hash: [{name,type}], range: [...], kind }.
export function keysOf(table, indexName) {
  const types = Object.fromEntries((table.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]));
  let schema = table.KeySchema;
  let kind = 'table';
  if (indexName) {
    const g = (table.GlobalSecondaryIndexes ?? []).find((i) => i.IndexName === indexName);
    const l = (table.LocalSecondaryIndexes ?? []).find((i) => i.IndexName === indexName);
    schema = (g ?? l)?.KeySchema ?? [];
    kind = g ? 'gsi' : 'lsi';
  }
  const pick = (t) => schema.filter((k) => k.KeyType === t).map((k) => ({ name: k.AttributeName, type: types[k.AttributeName] ?? 'S' }));
  return { hash: pick('HASH'), range: pick('RANGE'), kind };
}

// A placeholder-safe token of an attribute name ("order-id" -> "order_id").
const token = (name) => name.replace(/[^A-Za-z0-9_]/g, '_') || '_';

// A typed key value from the text typed for it.
export function keyValue(type, text) {
  if (type === 'N') return { N: text.trim() };
  if (type === 'B') return { B: text.trim() };
  return { S: text };
}

// Parses an optional JSON object field ("" -> {}); values may be DynamoDB JSON
// or plain JSON (a plain value becomes its DynamoDB type).
function parseObject(text, what) {
  if (!text.trim()) return {};
  let v;
  try {
    v = parseExact(text);
  } catch (e) {
    throw new Error(`${what}: ${e.message}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what}: expected a JSON object`);
  return v;
}

export function createQueryBuilder(table, { onRun, onChange, params = {} } = {}) {
  const indexes = [
    ...(table.GlobalSecondaryIndexes ?? []).map((i) => ({ name: i.IndexName, kind: 'GSI' })),
    ...(table.LocalSecondaryIndexes ?? []).map((i) => ({ name: i.IndexName, kind: 'LSI' })),
  ];
  const opName = newId('op');
  const scanRadio = h('input', { type: 'radio', name: opName, value: 'Scan' });
  const queryRadio = h('input', { type: 'radio', name: opName, value: 'Query' });
  (params.op === 'Query' || (!params.op && params.pk) ? queryRadio : scanRadio).checked = true;
  const index = h('select', {}, h('option', { value: '' }, `Table: ${table.TableName}`),
    indexes.map((i) => h('option', { value: i.name, selected: params.index === i.name }, `${i.kind}: ${i.name}`)));
  const keyBox = h('div', { class: 'key-conditions' });
  const filter = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: 'e.g. #total > :min AND attribute_exists(shipped)', class: 'mono' });
  const filterNames = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: '{"#total": "total"}', class: 'mono' });
  const filterValues = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: '{":min": {"N": "10"}}  or  {":min": 10}', class: 'mono' });
  const projection = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: 'all attributes (or: pk, total, address.city)', class: 'mono' });
  const descending = h('input', { type: 'checkbox' });
  const consistent = h('input', { type: 'checkbox' });
  const limit = h('input', { type: 'number', min: '1', value: params.limit ?? '50', inputmode: 'numeric' });
  const run = h('button', { type: 'submit', class: 'primary' }, 'Run');
  const indexHint = h('div', { class: 'hint' });

  let keyInputs = [];  // { attr, role, op?, value, value2? }
  function renderKeys() {
    const { hash, range, kind } = keysOf(table, index.value);
    indexHint.textContent = `Key: ${[...hash.map((a) => `${a.name} (partition ${a.type})`), ...range.map((a) => `${a.name} (sort ${a.type})`)].join(', ')}` +
      (kind === 'gsi' ? ' · global index: eventually consistent only' : '');
    consistent.disabled = kind === 'gsi';
    if (consistent.disabled) consistent.checked = false;
    keyInputs = [];
    keyBox.replaceChildren();
    hash.forEach((a, i) => {
      const value = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', inputmode: a.type === 'N' ? 'decimal' : null, 'data-key': a.name });
      value.value = params[`k.${a.name}`] ?? (i === 0 && params.pk ? params.pk : '');
      keyInputs.push({ attr: a, role: 'hash', value });
      keyBox.append(field(`${a.name} = (partition key, ${a.type})`, value));
    });
    range.forEach((a) => {
      const op = h('select', { 'aria-label': `Condition on ${a.name}` }, SORT_OPS.map(([v, t]) => h('option', { value: v }, t)));
      const value = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', 'aria-label': `${a.name} value`, disabled: true, 'data-key': a.name });
      const value2 = h('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', 'aria-label': `${a.name} upper bound`, hidden: true });
      const and = h('span', { class: 'muted', hidden: true }, 'and');
      const sync = () => {
        value.disabled = !op.value;
        value2.hidden = and.hidden = op.value !== 'between';
      };
      op.addEventListener('change', sync);
      if (params[`op.${a.name}`] && SORT_OPS.some(([v]) => v === params[`op.${a.name}`])) {
        op.value = params[`op.${a.name}`];
        value.value = params[`k.${a.name}`] ?? '';
        value2.value = params[`hi.${a.name}`] ?? '';
        sync();
      }
      keyInputs.push({ attr: a, role: 'range', op, value, value2 });
      const id = newId('sk');
      keyBox.append(h('div', { class: 'field' }, h('span', { class: 'label', id }, `${a.name} (sort key, ${a.type})`),
        h('div', { class: 'sort-cond', role: 'group', 'aria-labelledby': id }, op, value, and, value2)));
    });
  }

  const isQuery = () => queryRadio.checked;
  const syncMode = () => {
    keyBox.hidden = !isQuery();
    descending.disabled = !isQuery();
    form.dataset.mode = isQuery() ? 'Query' : 'Scan';
  };

  const form = h('form', { class: 'query-builder', 'aria-label': 'Query builder' },
    h('div', { class: 'row' },
      h('fieldset', { class: 'inline mode' }, h('legend', {}, 'Operation'), h('label', {}, scanRadio, ' Scan'), h('label', {}, queryRadio, ' Query')),
      h('div', { class: 'field grow' }, h('label', { for: index.id = newId('ix') }, 'Table or index'), index, indexHint)),
    keyBox,
    h('div', { class: 'row' }, field('Filter expression', filter), field('Filter names', filterNames), field('Filter values', filterValues)),
    h('div', { class: 'row' }, field('Projection', projection),
      h('div', { class: 'checks' }, h('label', {}, descending, ' Descending'), h('label', {}, consistent, ' Consistent read')),
      field('Limit (items per page)', limit),
      h('div', { class: 'field run' }, run)));
  form.addEventListener('submit', (e) => { e.preventDefault(); onRun?.(); });
  form.addEventListener('input', () => onChange?.());
  form.addEventListener('change', (e) => {
    if (e.target === index) renderKeys();
    syncMode();
    onChange?.();
  });
  renderKeys();
  syncMode();

  // The DynamoDB request the form describes: { operation, request }.
  function build() {
    const operation = isQuery() ? 'Query' : 'Scan';
    const request = { TableName: table.TableName };
    if (index.value) request.IndexName = index.value;
    const names = {};
    const values = {};
    const nameFor = (attr) => {
      let t = `#${token(attr)}`;
      for (let n = 2; names[t] !== undefined && names[t] !== attr; n++) t = `#${token(attr)}${n}`;
      names[t] = attr;
      return t;
    };
    const valueFor = (attr, av, suffix = '') => {
      let t = `:${token(attr)}${suffix}`;
      for (let n = 2; values[t] !== undefined; n++) t = `:${token(attr)}${suffix}${n}`;
      values[t] = av;
      return t;
    };
    if (operation === 'Query') {
      const parts = [];
      for (const k of keyInputs) {
        const { name, type } = k.attr;
        if (k.role === 'hash') {
          parts.push(`${nameFor(name)} = ${valueFor(name, keyValue(type, k.value.value))}`);
        } else if (k.op.value === 'between') {
          parts.push(`${nameFor(name)} BETWEEN ${valueFor(name, keyValue(type, k.value.value), '_lo')} AND ${valueFor(name, keyValue(type, k.value2.value), '_hi')}`);
        } else if (k.op.value === 'begins_with') {
          parts.push(`begins_with(${nameFor(name)}, ${valueFor(name, keyValue(type, k.value.value))})`);
        } else if (k.op.value) {
          parts.push(`${nameFor(name)} ${k.op.value} ${valueFor(name, keyValue(type, k.value.value))}`);
        }
      }
      request.KeyConditionExpression = parts.join(' AND ');
      if (descending.checked) request.ScanIndexForward = false;
    }
    if (filter.value.trim()) {
      request.FilterExpression = filter.value.trim();
      const fn = parseObject(filterNames.value, 'Filter names');
      for (const [k, v] of Object.entries(fn)) {
        if (typeof v !== 'string') throw new Error(`Filter names: ${k} must name an attribute ("${k}": "attribute")`);
        if (names[k] !== undefined && names[k] !== v) throw new Error(`Filter names: ${k} is already the key condition's placeholder for ${names[k]}; choose another`);
        names[k] = v;
      }
      const fv = parseObject(filterValues.value, 'Filter values');
      for (const [k, v] of Object.entries(fv)) {
        // {"N": "10"} is DynamoDB JSON (checked here); anything else plain JSON.
        const problems = typeOf(v) ? validateItem({ [k]: v }) : [];
        if (problems.length) throw new Error(`Filter values: ${problems[0]}`);
        const av = typeOf(v) ? v : fromPlain(v);
        if (values[k] !== undefined) throw new Error(`Filter values: ${k} is already the key condition's placeholder; choose another`);
        values[k] = av;
      }
    }
    if (projection.value.trim()) {
      request.ProjectionExpression = projection.value.split(',').map((p) => p.trim()).filter(Boolean).map((path) =>
        path.split('.').map((seg) => {
          const m = /^([^[\]]+)((?:\[\d+\])*)$/.exec(seg.trim());
          if (!m) throw new Error(`Projection: cannot read the path ${path}`);
          return nameFor(m[1]) + m[2];
        }).join('.')).join(', ');
    }
    if (consistent.checked) request.ConsistentRead = true;
    if (limit.value.trim()) request.Limit = Number(limit.value);
    if (Object.keys(names).length) request.ExpressionAttributeNames = names;
    if (Object.keys(values).length) request.ExpressionAttributeValues = values;
    return { operation, request };
  }

  // The route parameters that reopen this query: op, index, and for a Query
  // "k.<attribute>" for each key value, "op.<attribute>" for a sort condition
  // ("hi.<attribute>" its upper bound): #/table/T/items?op=Query&k.pk=a.
  function routeParams() {
    const p = { op: isQuery() ? 'Query' : 'Scan' };
    if (index.value) p.index = index.value;
    if (!isQuery()) return p;
    for (const k of keyInputs) {
      const name = k.attr.name;
      if (k.role === 'hash') {
        p[`k.${name}`] = k.value.value;
      } else if (k.op.value) {
        p[`op.${name}`] = k.op.value;
        p[`k.${name}`] = k.value.value;
        if (k.op.value === 'between') p[`hi.${name}`] = k.value2.value;
      }
    }
    return p;
  }

  return {
    el: form, build, routeParams,
    keys: () => keysOf(table, index.value),
    focus: () => (isQuery() ? keyInputs[0]?.value : scanRadio)?.focus(),
  };
}
